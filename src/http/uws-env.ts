// Settings the native uWebSockets.js library reads from the environment once, when it loads:
// this module is imported before it (src/http/server.ts), so they apply in every process and
// test that starts the edge. A value already in the environment wins.
//
// UWS_HTTP_MAX_HEADERS_SIZE: the request line and headers uWebSockets.js accepts, in bytes; past
// it the native parser answers 431 by itself (not in the envelope). Its default, 4 KB, refuses a
// URL with a long page cursor next to a token; 32 KB lets every such request reach the edge's
// own checks, which answer in the envelope. The uWebSockets.js of Node 20 (20.30) had no such cap.
// The value is in src/config/reference.ts, which documents it in docs/configuration.md.
import { CONFIG_VARIABLES } from '../config/reference.js';

process.env.UWS_HTTP_MAX_HEADERS_SIZE ??= CONFIG_VARIABLES.UWS_HTTP_MAX_HEADERS_SIZE.default;
