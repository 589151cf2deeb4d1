import cf from 'cloudfront';

// CloudFront Function, viewer request (cloudfront-js-2.0: ES5.1, no destructuring, spread, ??,
// ?., classes, Map/Set, for..of; at most 10 KB); the local edge runs it too. Keyless view reads
// become S3 keys, the rest of /api/ goes to the API. Preflights and 405s are answered here from
// CORS_ROUTES, except that /mcp and /.well-known/ (the HTTP API) pass untouched but for OPTIONS.

var API_ORIGIN = 'api';
var AUTHOR = '<https://border-waits.dev/>; rel="author"';
// One byte range; any other Range is dropped (RFC 9110 14.2).
var RANGE = /^bytes=(\d{1,15})?-(\d{1,15})?$/;
// [path or prefix/, methods, headers], from infra/manifest.ts by `npm run edge:slugs`.
// BEGIN CORS_ROUTES
// biome-ignore format: one line
var CORS_ROUTES = [["/mcp","POST","authorization, content-type, mcp-protocol-version, mcp-session-id, mcp-method, mcp-name, last-event-id"],["/keys/requests","POST","content-type"],["/push/subscriptions","POST","content-type"],["/push/subscriptions/","PUT, DELETE","authorization, content-type"],["/api/","GET, HEAD","x-api-key, if-none-match, if-modified-since"],["/","GET, HEAD","if-none-match, if-modified-since"]];
// END CORS_ROUTES
var BORDERS = { mx: 'mx', ca: 'ca' };
var PORT_ID = /^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/;

// Slug -> the name of a port's documents (its lower-case id), by `npm run edge:slugs`.
// BEGIN SLUG_IDS
// biome-ignore format: one line
var SLUG_IDS = {"jackman":"010401","houlton":"010601","madawaska":"010901","calais-ferry-point":"011501","calais-milltown":"011502","calais-international-avenue":"011503","derby-line-i-91":"020901","norton":"021101","highgate-springs":"021201","ogdensburg":"070101","massena":"070401","alexandria-bay-thousand-islands-bridge":"070801","alexandria-bay-ny":"070803","champlain":"071201","buffalo-niagara-falls-peace-bridge":"090101","buffalo-niagara-falls-rainbow-bridge":"090102","buffalo-niagara-falls-whirlpool-bridge":"090103","buffalo-niagara-falls-lewiston-bridge":"090104","blaine-pacific-highway":"300401","blaine-peace-arch":"300402","blaine-point-roberts":"300403","sumas":"300901","lynden":"302301","sweetgrass":"331001","pembina":"340101","north-portal":"cbsa-north-portal","international-falls":"360401","detroit-ambassador-bridge":"380001","detroit-windsor-tunnel":"380002","detroit-gordie-howe-international-bridge":"380102","port-huron-bluewater-bridge":"380201","sault-ste-marie-international-bridge-ssm":"380301","madawaska-l01901":"l01901","paso-del-norte":"202401","gateway":"230103","del-rio":"230201","eagle-pass-bridge-i":"230301","eagle-pass-bridge-ii":"230302","laredo-bridge-i":"230401","laredo-bridge-ii":"230402","laredo-colombia-solidarity":"230403","laredo-world-trade-bridge":"230404","hidalgo-pharr-hidalgo":"230501","hidalgo-pharr-pharr":"230502","hidalgo-pharr-anzalduas-international-bridge":"230503","rio-grande-city":"230701","progreso-international-bridge":"230901","progreso-donna-international-bridge":"230902","roma":"231001","roma-texas":"231002","el-paso-bridge-of-the-americas-bota":"240201","el-paso-paso-del-norte-pdn":"240202","el-paso-ysleta":"240203","el-paso-stanton-dcl":"240204","presidio":"240301","fabens-tornillo":"240401","ft-hancock":"240403","columbus":"240601","santa-teresa-port-of-entry":"240801","andrade":"250201","calexico-east":"250301","calexico-west":"250302","san-ysidro":"250401","san-ysidro-pedwest":"250407","san-ysidro-cross-border-express":"250409","tecate":"250501","otay-mesa-passenger":"250601","otay-mesa-commercial":"250602","otay-mesa-pedestrian-cross-border-xpress":"250603","douglas-raul-hector-castro":"260101","lukeville":"260201","naco":"260301","naco-260305":"260305","nogales-deconcini":"260401","nogales-mariposa":"260402","nogales-morley-gate":"260403","san-luis-i":"260801","san-luis-ii":"260802","brownsville-b-and-m":"535501","brownsville-veterans-international":"535502","brownsville-los-indios":"535503","brownsville-gateway":"535504","fort-hancock":"l24501"};
// END SLUG_IDS

function reply(status, title, headers) {
  headers['access-control-allow-origin'] = { value: '*' };
  headers.link = { value: AUTHOR };
  return { statusCode: status, statusDescription: title, headers: headers };
}

function problem(status, title, detail, instance, type) {
  var out = reply(status, title, {
    'content-type': { value: 'application/problem+json' },
    'cache-control': { value: 'public, max-age=300' },
  });
  out.body = JSON.stringify({
    type: 'https://border-waits.dev/problems/' + type,
    title: title,
    status: status,
    detail: detail,
    instance: instance,
  });
  return out;
}

function corsRoute(uri) {
  for (var i = 0; i < CORS_ROUTES.length; i++) {
    var path = CORS_ROUTES[i][0];
    if (path.charAt(path.length - 1) === '/' ? uri.indexOf(path) === 0 : uri === path) return CORS_ROUTES[i];
  }
  return ['/', 'GET, HEAD', ''];
}

function preflight(route) {
  return reply(204, 'No Content', {
    allow: { value: route[1] },
    'access-control-allow-methods': { value: route[1] },
    'access-control-allow-headers': { value: route[2] },
    'access-control-max-age': { value: '86400' },
    'cache-control': { value: 'public, max-age=86400' },
  });
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
  return dataRange(request);
}

function dataRange(request) {
  var range = request.headers.range;
  var m = range && RANGE.exec(range.value);
  if (range && !(m && (m[1] || m[2]) && !(m[1] && m[2] && +m[2] < +m[1]))) delete request.headers.range;
  return request;
}

// No index documents in S3: `/status/` and `/status` mean `status/index.html`.
function sitePage(request) {
  var uri = request.uri;
  if (uri.indexOf('/v1/') === 0 || uri.indexOf('/rss') === 0) return dataRange(request);
  if (uri.charAt(uri.length - 1) === '/') {
    request.uri = uri + 'index.html';
  } else if (uri.slice(uri.lastIndexOf('/') + 1).indexOf('.') === -1) {
    request.uri = uri + '/index.html';
  }
  return request;
}

// The document of the port `port_id` names (id or slug, any case), in `folder`.
function portView(request, uri, folder) {
  var portId = param(request, 'port_id');
  if (portId === undefined || portId === '') {
    return badParameter('port_id is required: a port id (250401) or slug (san-ysidro)', uri);
  }
  if (!PORT_ID.test(portId)) {
    return badParameter('port_id must be a port id or slug (letters, digits, hyphens)', uri);
  }
  var name = portId.toLowerCase();
  // biome-ignore lint/suspicious/noPrototypeBuiltins: no Object.hasOwn in this runtime
  if (Object.prototype.hasOwnProperty.call(SLUG_IDS, name)) name = SLUG_IDS[name];
  return toStatic(request, folder + name + '.json');
}

function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri.length > 1 && uri.charAt(uri.length - 1) === '/') uri = uri.slice(0, -1);
  var method = request.method;
  var route = corsRoute(uri);
  if (method === 'OPTIONS') return preflight(route);
  if (uri === '/mcp' || uri.indexOf('/.well-known/') === 0) return request;
  if (route[1].split(', ').indexOf(method) === -1) {
    var out = problem(
      405,
      'Method not allowed',
      uri + ' answers ' + route[1] + ' only',
      uri,
      'method-not-allowed',
    );
    out.headers.allow = { value: route[1] };
    return out;
  }

  // The request-a-key form and the Web Push endpoints.
  if (uri === '/keys/requests' || uri.indexOf('/push/') === 0) {
    cf.selectRequestOriginById(API_ORIGIN);
    return request;
  }
  if (uri.indexOf('/api/') !== 0) return sitePage(request);

  // A key means the keyed API: metered, same bodies, never the CDN copy.
  if (request.headers['x-api-key']) {
    cf.selectRequestOriginById(API_ORIGIN);
    return request;
  }
  if (uri === '/api/v1/ports') {
    var border = param(request, 'border');
    if (border === undefined) return toStatic(request, 'v1/ports/all.json');
    // Own properties only: `?border=constructor` must not find Object.prototype's.
    // biome-ignore lint/suspicious/noPrototypeBuiltins: no Object.hasOwn in this runtime
    if (!Object.prototype.hasOwnProperty.call(BORDERS, border)) {
      return badParameter('border must be "mx" or "ca", got "' + border.slice(0, 40) + '"', uri);
    }
    return toStatic(request, 'v1/ports/' + BORDERS[border] + '.json');
  }
  if (uri === '/api/v1/port-current') {
    var include = param(request, 'include');
    if (include === undefined) return toStatic(request, 'v1/port-current/all.json');
    if (include !== 'ports') {
      return badParameter('include must be "ports", got "' + include.slice(0, 40) + '"', uri);
    }
    return toStatic(request, 'v1/port-current/ports.json');
  }
  if (uri === '/api/v1/port-hourly-averages') {
    return portView(request, uri, 'v1/port-hourly-averages/');
  }
  if (uri === '/api/v1/port-forecast') {
    return portView(request, uri, 'v1/port-forecast/');
  }
  if (uri === '/api/v1/port-typical-waits') {
    return portView(request, uri, 'v1/port-typical-waits/');
  }
  if (uri === '/api/v1/forecast-skill') {
    return toStatic(request, 'v1/forecast-skill.json');
  }
  cf.selectRequestOriginById(API_ORIGIN);
  return request;
}
