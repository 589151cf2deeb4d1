/**
 * Alarms on what users would notice (stale feeds, API and MCP errors, throttling), a dashboard, and
 * the encrypted topic every alarm notifies when it fires and when it clears. Operators subscribe
 * to the topic (email, chat, paging) after the deploy: its ARN is the AlarmTopicArn output.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { METRIC_NAMES, METRICS_NAMESPACE } from '../../functions/core/metrics.ts';
import { FUNCTIONS } from '../manifest.ts';
import { Section } from './logical-ids.ts';
import type { ServiceFunction } from './service-function.ts';
import type { FunctionName } from './service-functions.ts';

export interface ObservabilityProps {
  readonly functions: Record<FunctionName, ServiceFunction>;
  readonly api: RestApi;
  readonly httpApi: HttpApi;
}

/** One alarm: fires at `threshold` or more unless `comparison` says otherwise. */
interface AlarmSpec {
  readonly id: string;
  readonly description: string;
  readonly metric: IMetric;
  readonly threshold: number;
  readonly evaluationPeriods?: number;
  readonly comparison?: ComparisonOperator;
  /** A silent metric is healthy unless said otherwise. */
  readonly missing?: TreatMissingData;
}

export class Observability extends Section {
  readonly alarmKey: Key;
  readonly alarmTopic: Topic;

  constructor(scope: Construct, id: string, { functions, api, httpApi }: ObservabilityProps) {
    super(scope, id);
    const ingest = functions.ingest.fn;
    const forecast = functions.forecast.fn;
    const apiFn = functions.api.fn;
    const minutes = (n: number) => ({ period: Duration.minutes(n) });
    const atLeast = ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;

    const specs: AlarmSpec[] = [
      {
        id: 'IngestErrors',
        description: 'Ingest failed 3 cycles in a row: feeds may be stale',
        metric: ingest.metricErrors(minutes(1)),
        threshold: 1,
        evaluationPeriods: 3,
      },
      {
        id: 'IngestNotRunning',
        description: 'No ingest invocation in 10 minutes: the schedule stopped, the feeds go stale',
        metric: ingest.metricInvocations(minutes(10)),
        threshold: 1,
        comparison: ComparisonOperator.LESS_THAN_THRESHOLD,
        missing: TreatMissingData.BREACHING,
      },
      {
        id: 'ForecastErrors',
        description:
          'The forecast function failed 3 runs in a row: forecasts and their track record go stale',
        metric: forecast.metricErrors(minutes(5)),
        threshold: 1,
        evaluationPeriods: 3,
      },
      {
        id: 'FeedsFailing',
        description:
          'A feed failed or was refused at every cycle for 15 minutes: its readings age towards stale',
        // The ingest function counts failed and refused documents per cycle (EMF, Powertools).
        metric: new Metric({
          namespace: METRICS_NAMESPACE,
          metricName: METRIC_NAMES.feedFailures,
          dimensionsMap: { service: FUNCTIONS.ingest.name },
          statistic: 'Sum',
          ...minutes(15),
        }),
        threshold: 15,
      },
      {
        id: 'Api5xx',
        description: 'API Gateway 5XX responses',
        metric: api.metricServerError(minutes(5)),
        threshold: 5,
      },
      {
        id: 'ApiThrottles',
        description: 'api function throttled (account concurrency reached)',
        metric: apiFn.metricThrottles(minutes(5)),
        threshold: 1,
      },
      {
        id: 'Mcp5xx',
        description: 'MCP endpoint 5xx responses (function errors, JWKS unreachable)',
        metric: httpApi.metricServerError(minutes(5)),
        threshold: 5,
      },
    ];
    const alarms = specs.map(
      (spec) =>
        new Alarm(this, spec.id, {
          alarmDescription: spec.description,
          metric: spec.metric,
          threshold: spec.threshold,
          evaluationPeriods: spec.evaluationPeriods ?? 1,
          comparisonOperator: spec.comparison ?? atLeast,
          treatMissingData: spec.missing ?? TreatMissingData.NOT_BREACHING,
        }),
    );

    const dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-service`,
    });
    const graph = (title: string, left: IMetric[], right: IMetric[]) =>
      new GraphWidget({ title, left, right });
    dashboard.addWidgets(
      graph('Ingest', [ingest.metricInvocations(), ingest.metricErrors()], [ingest.metricDuration()]),
      graph('Forecast', [forecast.metricInvocations(), forecast.metricErrors()], [forecast.metricDuration()]),
      graph(
        'API',
        [api.metricCount(), api.metricClientError(), api.metricServerError()],
        [api.metricLatency()],
      ),
      graph('api function', [apiFn.metricErrors(), apiFn.metricThrottles()], [apiFn.metricDuration()]),
      graph(
        'MCP',
        [httpApi.metricCount(), httpApi.metricClientError(), httpApi.metricServerError()],
        [functions.mcp.fn.metricDuration()],
      ),
    );

    // CloudWatch alarms cannot publish to a topic under the AWS-managed SNS key (its policy cannot
    // be changed), so the topic has its own key whose policy lets CloudWatch use it.
    this.alarmKey = new Key(this, 'AlarmKey', {
      description: 'Encrypts the alarm topic; CloudWatch may use it to publish',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    this.alarmKey.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    this.alarmTopic = new Topic(this, 'Alarms', {
      displayName: 'border waits alarms',
      enforceSSL: true,
      masterKey: this.alarmKey,
    });
    const notify = new SnsAction(this.alarmTopic);
    for (const alarm of alarms) {
      alarm.addAlarmAction(notify);
      alarm.addOkAction(notify);
    }
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarmTopic.topicArn });
  }
}
