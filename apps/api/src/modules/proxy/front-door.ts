import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { refuseBadUrls } from '../../common/http/input-hygiene';
import { requestContext } from '../../common/http/request-context';
import { setSecurityHeaders } from '../../common/http/security-headers';
import { gatewayPrefixOf } from './allowlist';
import type { GatewayRequest, GatewayService } from './gateway.service';

/**
 * Puts the gateway in front of Express on the app's own http server: a request under /v1 (or an alias) goes
 * straight to GatewayService.serve with its request id, access line, security headers and URL check — the same
 * functions Express would have run — and everything else to Express as before. Express's router, its request and response
 * prototypes and the rest of the middleware chain cost about a tenth of a gateway call's CPU (docs/benchmarks.md).
 */
export function installFrontDoor(server: Server, gateway: GatewayService, logRequests: boolean): void {
  const [express, ...others] = server.listeners('request') as RequestListener[];
  if (!express || others.length) throw new Error('expected exactly one request listener (Express) on the http server');
  const context = requestContext(undefined, logRequests);
  server.removeListener('request', express);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    if (!gatewayPrefixOf(path)) return express(req, res);
    const call = req as GatewayRequest;
    call.path = path;
    // The security headers without Express's X-Powered-By removal: Express never ran for this request.
    context(call, res, () => {
      setSecurityHeaders(res);
      refuseBadUrls(call, res, () => gateway.serve(call, res));
    });
  });
}
