// What the bundled CLI takes from undici (src/client/transport.ts): its Agent and
// EnvHttpProxyAgent, with the request API undici's index gives every dispatcher. The index also
// loads fetch, WebSocket, EventSource, caches, mocks and interceptors, which guidectl never uses:
// a third of undici's code to compile on every start. scripts/bundle-cli.mjs aliases 'undici' here.
'use strict';
const Dispatcher = require('undici/lib/dispatcher/dispatcher');
const api = require('undici/lib/api');

Object.assign(Dispatcher.prototype, api);
module.exports.Agent = require('undici/lib/dispatcher/agent');
module.exports.EnvHttpProxyAgent = require('undici/lib/dispatcher/env-http-proxy-agent');
