import cf from 'cloudfront';

// CloudFront Function (cloudfront-js-2.0), viewer request. The same file runs in the local edge
// (infra/local/edge.ts loads it in node:vm). The runtime is ES5.1 plus a few additions: no
// destructuring, spread, `??`, `?.`, classes, Map/Set or for..of (AWS "JavaScript runtime 2.0").
//
// Keyless reads of the precomputed views become S3 object keys; everything else under /api/ (keyed
// requests, wait-observations, openapi.json) goes to the API origin. /mcp and the OAuth metadata
// never reach this function: their behaviours send them to the HTTP API without it.

var API_ORIGIN = 'api';
var BORDERS = { mx: 'mx', ca: 'ca' };
var PORT_ID = /^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/;

function problem(status, title, detail, instance, type) {
  return {
    statusCode: status,
    statusDescription: title,
    headers: {
      'content-type': { value: 'application/problem+json' },
      'cache-control': { value: 'public, max-age=300' },
      'access-control-allow-origin': { value: '*' },
    },
    body: JSON.stringify({
      type: 'https://border-waits.dev/problems/' + type,
      title: title,
      status: status,
      detail: detail,
      instance: instance,
    }),
  };
}

function badParameter(detail, instance) {
  return problem(400, 'Invalid query parameter', detail, instance, 'invalid-parameter');
}

function param(request, name) {
  var entry = request.querystring[name];
  if (!entry) return undefined;
  // Repeated parameters: the first value counts, as in the API handler.
  if (entry.multiValue && entry.multiValue.length > 0) return entry.multiValue[0].value;
  return entry.value;
}

function toStatic(request, key) {
  request.uri = '/' + key;
  request.querystring = {};
  return request;
}

// The S3 REST origin has no index documents: `/status/` and `/status` both mean `status/index.html`.
function sitePage(request) {
  var uri = request.uri;
  if (uri.indexOf('/v1/') === 0 || uri.indexOf('/rss') === 0) return request;
  if (uri.charAt(uri.length - 1) === '/') {
    request.uri = uri + 'index.html';
  } else if (uri.slice(uri.lastIndexOf('/') + 1).indexOf('.') === -1) {
    request.uri = uri + '/index.html';
  }
  return request;
}

// A per-port view: the document of the port `port_id` names, in `folder`. Ids and slugs are
// published in lower case; the keyed API matches any case, and so does this.
function portView(request, uri, folder) {
  var portId = param(request, 'port_id');
  if (portId === undefined || portId === '') {
    return badParameter('port_id is required: a port id (250401) or slug (san-ysidro)', uri);
  }
  if (!PORT_ID.test(portId)) {
    return badParameter('port_id must be a port id or slug (letters, digits, hyphens)', uri);
  }
  return toStatic(request, folder + portId.toLowerCase() + '.json');
}

function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri.length > 1 && uri.charAt(uri.length - 1) === '/') uri = uri.slice(0, -1);

  // The request-a-key form posts here (the api function stores requests).
  if (uri === '/keys/requests') {
    cf.selectRequestOriginById(API_ORIGIN);
    return request;
  }
  if (uri.indexOf('/api/') !== 0) return sitePage(request);

  // A key means the keyed API: metered, same bodies, never the CDN copy.
  if (request.headers['x-api-key']) {
    cf.selectRequestOriginById(API_ORIGIN);
    return request;
  }
  var method = request.method;
  var staticMethod = method === 'GET' || method === 'HEAD';

  if (uri === '/api/v1/ports' && staticMethod) {
    var border = param(request, 'border');
    if (border === undefined) return toStatic(request, 'v1/ports/all.json');
    // Own properties only: `?border=constructor` must not find Object.prototype's. (Object.hasOwn
    // is ES2022; this runtime is ES5.1 with additions.)
    // biome-ignore lint/suspicious/noPrototypeBuiltins: Object.hasOwn may not exist in cloudfront-js-2.0
    if (!Object.prototype.hasOwnProperty.call(BORDERS, border)) {
      return badParameter('border must be "mx" or "ca", got "' + border.slice(0, 40) + '"', uri);
    }
    return toStatic(request, 'v1/ports/' + BORDERS[border] + '.json');
  }
  if (uri === '/api/v1/port-current' && staticMethod) {
    var include = param(request, 'include');
    if (include === undefined) return toStatic(request, 'v1/port-current/all.json');
    if (include !== 'ports') {
      return badParameter('include must be "ports", got "' + include.slice(0, 40) + '"', uri);
    }
    return toStatic(request, 'v1/port-current/ports.json');
  }
  if (uri === '/api/v1/port-hourly-averages' && staticMethod) {
    return portView(request, uri, 'v1/port-hourly-averages/');
  }
  if (uri === '/api/v1/port-forecast' && staticMethod) {
    return portView(request, uri, 'v1/port-forecast/');
  }
  if (uri === '/api/v1/forecast-skill' && staticMethod) {
    return toStatic(request, 'v1/forecast-skill.json');
  }
  cf.selectRequestOriginById(API_ORIGIN);
  return request;
}
