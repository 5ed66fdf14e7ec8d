export type RuntimeName = 'deno' | 'bun' | 'workerd';
export function runtimeCacheDir(name: RuntimeName | 'node-lts'): string;
export const RUNTIMES: Record<RuntimeName | 'node-lts', { spec: string; binary: string }>;
export function sqliteBuildDir(modules: string): string;
