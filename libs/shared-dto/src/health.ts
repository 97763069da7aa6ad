export interface HealthResponse {
  status: 'ok';
  version: string;
}

export interface ReadinessResponse {
  status: 'ok' | 'unavailable' | 'shutting_down';
  database: 'ok' | 'unavailable';
  /** embedded (PGlite) or postgres (DATABASE_URL). */
  databaseKind: 'embedded' | 'postgres';
}
