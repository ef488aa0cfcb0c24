/** apps/server/dist/main.mjs: the server built to JavaScript. */
export declare const SERVER_BUNDLE: string;
export declare const SERVER_ENTRY: string;
/** Builds the server bundle (esbuild); resolves to its path. */
export declare function buildServer(): Promise<string>;
