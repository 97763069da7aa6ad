import type { UserRole } from '@switchyard/shared-dto';

/** Who is calling a management route, as the authentication guard attached it to the request. */
export interface SessionPrincipal {
  kind: 'session';
  userId: string;
  email: string;
  role: UserRole;
  sessionId: string;
  /** How the session token arrived: the Authorization header or the dashboard's cookie. */
  via: 'bearer' | 'cookie';
}

declare module 'express-serve-static-core' {
  interface Request {
    principal?: SessionPrincipal;
  }
}
