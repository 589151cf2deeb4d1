/**
 * The small typed error hierarchy of the domain. One middleware renders these as problem+json;
 * anything else is a 500 with no detail leaked.
 */
export class DomainError extends Error {
  override readonly name: string = 'DomainError';
}

/** A feed document that is wholly unusable (not XML/JSON/CSV at all, no ports, wrong header). */
export class FeedFormatError extends DomainError {
  override readonly name = 'FeedFormatError';
}

/** A query parameter with a bad value (400). */
export class InvalidQueryError extends DomainError {
  override readonly name = 'InvalidQueryError';
  readonly parameter: string;
  /** Every bad parameter, `{ name, reason }`. */
  errors: { name: string; reason: string }[] = [];
  constructor(message: string, parameter: string) {
    super(message);
    this.parameter = parameter;
  }
}

/** A resource that does not exist (404). */
export class NotFoundError extends DomainError {
  override readonly name = 'NotFoundError';
}

/** A feed that could not be fetched: network error, timeout, HTTP error, size cap, content type. */
export class FeedFetchError extends DomainError {
  override readonly name = 'FeedFetchError';
}

/** A document refused by the sanity check (e.g. far fewer ports than the last good one). */
export class FeedRefusedError extends DomainError {
  override readonly name = 'FeedRefusedError';
}

/** A conditional write that lost to a concurrent writer (the stored version moved on). */
export class ConcurrentUpdateError extends DomainError {
  override readonly name = 'ConcurrentUpdateError';
}
