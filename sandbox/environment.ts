/**
 * The environment a tool's process starts with: an allowlist of harmless names, never the worker's
 * whole environment minus a scrub list. A worker holds provider keys, pool keys under any name,
 * `DATABASE_URL`, cloud credentials; a scrub list by name pattern always misses one (`KEY_A`,
 * `PGPASSWORD`, `GH_PAT`), an allowlist cannot. Users add names with `sandbox.env`.
 */

/** Locale, terminal and colour settings: what programs need to behave as they do in a shell. */
const BASIC = [
  'PATH',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'CI',
  'USER',
  'LOGNAME',
];

/** Where toolchains live (never secrets): so `python`, `cargo`, `go`, `java` resolve as outside. */
export const TOOLCHAIN_LOCATORS = [
  'PYENV_ROOT',
  'PYENV_VERSION',
  'CARGO_HOME',
  'RUSTUP_HOME',
  'RUSTUP_TOOLCHAIN',
  'GOROOT',
  'GOPATH',
  'JAVA_HOME',
  'NVM_DIR',
  'NVM_BIN',
  'VOLTA_HOME',
  'BUN_INSTALL',
  'DENO_INSTALL',
  'SDKMAN_DIR',
  'ASDF_DIR',
  'ASDF_DATA_DIR',
  'PNPM_HOME',
  'CONDA_PREFIX',
  'VIRTUAL_ENV',
] as const;

export interface ToolEnvironmentOptions {
  /** HOME inside the tool's process (a private, empty directory when sandboxed). */
  home: string;
  /** Extra names from `sandbox.env`. */
  passthrough?: readonly string[];
  /** Values Herald sets itself (proxy settings), applied last. */
  extra?: Readonly<Record<string, string>>;
}

/** The allowlisted environment for a tool process, built from the worker's environment. */
export function toolEnvironment(env: NodeJS.ProcessEnv, o: ToolEnvironmentOptions): Record<string, string> {
  const out: Record<string, string> = {};
  const names = new Set<string>([...BASIC, ...TOOLCHAIN_LOCATORS, ...(o.passthrough ?? [])]);
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (names.has(k) || k.startsWith('LC_')) out[k] = v;
  }
  out.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  out.HOME = o.home;
  out.SHELL = '/bin/bash';
  Object.assign(out, o.extra ?? {});
  return out;
}
