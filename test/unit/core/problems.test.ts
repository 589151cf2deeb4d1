/**
 * The problem catalogue is the one source of types, statuses and titles. Two places cannot import
 * it: the CloudFront function (a standalone ES5 file) and the S3 not-found page (a static JSON
 * file). Both keep literals, checked here against the catalogue.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  PROBLEM_BASE,
  PROBLEM_CONTENT_TYPE,
  PROBLEMS,
  type ProblemKind,
  problem,
  problemType,
} from '../../../functions/core/problems.ts';
import { SITE_ORIGIN } from '../../../functions/core/site.ts';
import { loadViewerRequest, toCfRequest, VIEWER_REQUEST_FILE } from '../../../infra/edge/load.ts';
import { GATEWAY_RESPONSES, gatewayProblemBody } from '../../../infra/manifest.ts';

const kinds = Object.keys(PROBLEMS) as ProblemKind[];

describe('problem catalogue', () => {
  it.each(kinds)('%s renders its type, title and status', (kind) => {
    const value = problem(kind, 'why', '/api/v1/ports', { extra: 1 });
    expect(value).toEqual({
      type: `${SITE_ORIGIN}/problems/${PROBLEMS[kind].slug}`,
      title: PROBLEMS[kind].title,
      status: PROBLEMS[kind].status,
      detail: 'why',
      instance: '/api/v1/ports',
      extra: 1,
    });
    // Member order is part of the byte-identical OpenAPI examples and gateway bodies.
    expect(Object.keys(value)).toEqual(['type', 'title', 'status', 'detail', 'instance', 'extra']);
  });

  it('keeps one status per problem type URI', () => {
    const bySlug = new Map<string, Set<number>>();
    for (const spec of Object.values(PROBLEMS)) {
      bySlug.set(spec.slug, (bySlug.get(spec.slug) ?? new Set()).add(spec.status));
    }
    for (const [slug, statuses] of bySlug) expect([slug, statuses.size]).toEqual([slug, 1]);
  });

  it('renders gateway responses as parseable problem+json', () => {
    for (const [name, spec] of Object.entries(GATEWAY_RESPONSES)) {
      const body = JSON.parse(gatewayProblemBody(name as keyof typeof GATEWAY_RESPONSES, '"Unauthorized"'));
      expect(body.type).toBe(problemType(spec.kind));
      expect(body.title).toBe(PROBLEMS[spec.kind].title);
      expect(body.status).toBe(spec.fixedStatus ? PROBLEMS[spec.kind].status : undefined);
    }
  });
});

describe('literals kept outside the catalogue', () => {
  const source = readFileSync(VIEWER_REQUEST_FILE, 'utf8');

  it('the CloudFront function writes the catalogue problem base and content type', () => {
    expect(source).toContain(`type: '${PROBLEM_BASE}' + type`);
    expect(source).toContain(`'content-type': { value: '${PROBLEM_CONTENT_TYPE}' }`);
  });

  it('each problem the CloudFront function writes has the catalogue status and title for its type', () => {
    const calls = [...source.matchAll(/problem\((\d{3}), '([^']+)', [^)]*'([a-z-]+)'\)/g)];
    expect(calls.length).toBeGreaterThan(0);
    for (const [, status, title, slug] of calls) {
      const spec = Object.values(PROBLEMS).find((s) => s.slug === slug && s.status === Number(status));
      expect(spec, `problem(${status}, '${title}', …, '${slug}')`).toBeDefined();
      expect(title).toBe(spec?.title);
    }
  });

  it.each(['/api/v1/ports?border=xx', '/api/v1/port-hourly-averages'])(
    'the CloudFront function answers %s with a catalogue problem',
    (path) => {
      const out = loadViewerRequest()(toCfRequest('GET', new URL(path, 'https://border-waits.test'), {}));
      expect(out.kind).toBe('response');
      if (out.kind !== 'response') return;
      const body = JSON.parse(out.response.body ?? '{}');
      expect({ type: body.type, title: body.title, status: body.status }).toEqual({
        type: problemType('invalid-parameter'),
        title: PROBLEMS['invalid-parameter'].title,
        status: PROBLEMS['invalid-parameter'].status,
      });
    },
  );

  it('the static not-found page of the CDN is the catalogue not-found problem', () => {
    const page = JSON.parse(
      readFileSync(new URL('../../../site/public/errors/not-found.json', import.meta.url), 'utf8'),
    );
    expect({ type: page.type, title: page.title, status: page.status }).toEqual({
      type: problemType('not-found'),
      title: PROBLEMS['not-found'].title,
      status: PROBLEMS['not-found'].status,
    });
  });
});
