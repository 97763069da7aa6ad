/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Where Switchyard is, when no server gives /config.json (the Vite dev server). */
  readonly VITE_SWITCHYARD_URL?: string;
}
