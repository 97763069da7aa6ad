// Every VITE_ variable the dashboard reads, parsed once at start-up, as the API does with its own (apps/api/src/config).

export interface DashboardEnv {
  /**
   * Prefix for API paths, without a trailing slash ('' = same origin, no prefix).
   * It must be a path: the session lives in a same-origin, HttpOnly cookie, so the API cannot sit on another origin.
   */
  apiBasePath: string;
}

function parseEnv(raw: ImportMetaEnv): DashboardEnv {
  const problems: string[] = [];

  const basePath = (raw.VITE_API_BASE_PATH ?? '').trim();
  if (basePath !== '' && (!basePath.startsWith('/') || basePath.startsWith('//'))) {
    problems.push(`VITE_API_BASE_PATH must be a path starting with a single "/" (got "${basePath}")`);
  }

  if (problems.length > 0) {
    throw new Error(`Invalid dashboard configuration:\n- ${problems.join('\n- ')}`);
  }
  return { apiBasePath: basePath.replace(/\/+$/, '') };
}

export const env: DashboardEnv = parseEnv(import.meta.env);
