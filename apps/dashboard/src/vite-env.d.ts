/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Path prefix in front of every API call, e.g. "/gateway" behind a reverse proxy. Default: none. */
  readonly VITE_API_BASE_PATH?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
