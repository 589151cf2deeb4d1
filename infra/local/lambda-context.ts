import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** A Lambda context shaped like the real one, with a deadline middy can arm its timer from. */
export function lambdaContext(functionName: string, timeoutSeconds: number, memoryMb = 512): Context {
  const deadline = Date.now() + timeoutSeconds * 1000;
  const requestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/${requestId}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}
