/**
 * Everyday work inside the workspace that the destructive rules would otherwise ask about, each
 * narrowed so that anything outside the pattern still asks: deleting folders that a build or a
 * package manager regenerates, printing from an interpreter, restoring named tracked files, and the
 * `eval "$(tool init -)"` lines that version managers and agents print for a shell to load.
 */
import type { Word } from '../shell.js';
import { isSecretFile, placeOf } from '../paths.js';

/** Folders every mainstream toolchain regenerates (build output, dependency trees, caches). */
const GENERATED = new Set([
  'node_modules',
  'dist',
  'build',
  'out',
  'target',
  'coverage',
  '.next',
  '.nuxt',
  '.svelte-kit',
  '.turbo',
  '.parcel-cache',
  '.nyc_output',
  '.cache',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  '.ruff_cache',
  '.tox',
  '.nox',
  '.venv',
  '.gradle',
  '.dart_tool',
  '.angular',
  '.eslintcache',
  'htmlcov',
  '.coverage',
  'tsconfig.tsbuildinfo',
]);

/**
 * A path inside the workspace that names a generated folder or something under one
 * (`node_modules`, `target/debug`, `packages/web/dist`). Only plain relative components: no `..`,
 * no glob, no variable, and no trailing slash (`rm -rf dist/` follows a planted symlink `dist -> ~`).
 */
export function isGeneratedPath(w: Word): boolean {
  if (w.value === null || w.glob) return false;
  const v = w.value.replace(/^(\.\/)+/, '');
  if (!v || v.endsWith('/') || v.startsWith('/') || v.startsWith('-') || v.startsWith('~')) return false;
  const parts = v.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..' || !/^[\w.@+-]+$/.test(p))) return false;
  return parts.some((p) => GENERATED.has(p));
}

/** File names that compilers and interpreters leave behind (`find . -name '*.pyc' -delete`). */
const GENERATED_NAMES =
  /^(\*\.(pyc|pyo|o|obj|class|tsbuildinfo|log|tmp|gcda|gcno)|\*\.egg-info|__pycache__|\.DS_Store|\.pytest_cache|\.mypy_cache|\.ruff_cache|node_modules|dist|build|coverage|\*~|Thumbs\.db)$/;

/**
 * `find ROOTS -name GEN [-type f|d] [-prune] -delete` or `… -exec rm -rf {} +` over generated names
 * only, with roots inside the workspace; more tests joined by the implicit "and" (`-path
 * './logs/*'`, `-mtime +7`, `-not -path './.venv/*'`) and depth limits only leave files out.
 * Anything else in the expression (`-o`, a group, another action) falls back to the usual rules.
 */
export function findsOnlyGenerated(args: Word[], roots: Word[]): boolean {
  if (!roots.every((r) => r.value !== null && !r.glob && /^(\.|\.\/[\w./@+-]*|[\w@+-][\w./@+-]*)$/.test(r.value)))
    return false;
  if (roots.some((r) => r.value!.split('/').includes('..') || (r.value!.endsWith('/') && r.value !== './')))
    return false;
  let named = false;
  for (let i = roots.length; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === null) return false;
    if (v === '-name' || v === '-iname') {
      const pat = args[++i]?.value;
      if (!pat || !GENERATED_NAMES.test(pat)) return false;
      named = true;
    } else if (v === '-type') {
      if (!/^[fd]$/.test(args[++i]?.value ?? '')) return false;
    } else if (v === '-not' || v === '!') {
      // `-not -path './.venv/*'`: a negated test only leaves files out.
      if (!/^-(i?path|i?name|wholename)$/.test(args[++i]?.value ?? '') || args[++i]?.value == null) return false;
    } else if (v === '-maxdepth' || v === '-mindepth') {
      if (!/^\d+$/.test(args[++i]?.value ?? '')) return false;
    } else if (/^-(i?path|wholename|[amc](time|min)|size|newer|empty)$/.test(v)) {
      if (v !== '-empty' && args[++i]?.value == null) return false;
    } else if (v === '-exec') {
      // Only `-exec rm [-rf] {} +` / `\;`.
      const cmd = args.slice(i + 1, i + 5).map((w) => w.value);
      const flags = /^-[rRf]+$/.test(cmd[1] ?? '') ? 1 : 0;
      if (cmd[0] !== 'rm' || cmd[1 + flags] !== '{}' || !['+', ';'].includes(cmd[2 + flags] ?? '')) return false;
      i += 3 + flags;
    } else if (!['-delete', '-prune', '-print', '-depth'].includes(v)) return false;
  }
  return named;
}

/**
 * Named files for `git restore FILE` / `git checkout -- FILE`: each operand a plain path (no `.`,
 * no glob, no pathspec magic `:/`, no trailing slash that names a whole folder).
 */
export function namedFiles(ops: Word[]): boolean {
  return (
    ops.length > 0 &&
    ops.every(
      (w) =>
        w.value !== null &&
        !w.glob &&
        !w.value.endsWith('/') &&
        !w.value.startsWith(':') &&
        !w.value.startsWith('-') &&
        !/(^|\/)\.{1,2}$/.test(w.value) &&
        !/[*?[]/.test(w.value),
    )
  );
}

/**
 * The init lines version managers and agents document for a shell's rc file. The tool prints
 * shell code for the current shell; the gate trusts the tool as it would running it directly.
 */
const INIT_LINE = new RegExp(
  String.raw`^("?)\$\((?:` +
    [
      String.raw`pyenv (?:init|virtualenv-init) -(?: (?:bash|zsh))?`,
      String.raw`pyenv init --path`,
      String.raw`(?:rbenv|nodenv|goenv|jenv|plenv|phpenv) init -(?: (?:bash|zsh))?`,
      String.raw`direnv hook (?:bash|zsh)`,
      String.raw`ssh-agent(?: -s)?`,
      String.raw`(?:starship|zoxide|mise|rtx|atuin|mcfly) (?:init|activate) (?:bash|zsh)`,
      String.raw`(?:/opt/homebrew/bin/|/usr/local/bin/|/home/linuxbrew/\.linuxbrew/bin/)?brew shellenv`,
      String.raw`fnm env(?: --use-on-cd)?`,
      String.raw`conda shell\.(?:bash|zsh) hook`,
      String.raw`opam env`,
      String.raw`dircolors(?: -b)?`,
      String.raw`luarocks path(?: --bin)?`,
      String.raw`(?:kubectl|helm|npm|pnpm|gh|docker|minikube|kind|k3d|poetry|pipx|uv|deno|bun|terraform|flux|argocd|eksctl|oc|kustomize|just|ng|yarn|rustup|cargo) completions? (?:bash|zsh)`,
      String.raw`(?:npm|pnpm|yarn|ng) completion`,
      String.raw`pip3? completion --(?:bash|zsh)`,
    ].join('|') +
    String.raw`)\)\1$`,
);

export function isInitLine(args: Word[]): boolean {
  return args.length === 1 && INIT_LINE.test(args[0]!.raw);
}

/** `source <(kubectl completion bash)`: the same lines, read through a process substitution. */
export function isInitSubstitution(raw: string): boolean {
  const m = /^<\(([^()]*)\)$/.exec(raw);
  return !!m && INIT_LINE.test(`$(${m[1]!.trim()})`);
}

/**
 * Interpreter code that only computes and prints (`python3 -c 'print(1+2)'`, `node -e
 * 'console.log(process.version)'`): every name in it comes from a short list of pure ones, string
 * literals are plain data (no f-strings, no template literals), imports and `require` name only
 * pure modules or a JSON file in the workspace. Any other name — `open`, `os`, `eval`, `exec`,
 * `getattr`, `fs`, `child_process`, `process.env` — leaves the code to the usual rules.
 */
const PURE_NAMES: Record<string, Set<string>> = {
  Python: new Set(
    (
      'print json dumps loads indent sort_keys sys version version_info executable argv path maxsize byteorder platform ' +
      'python_version machine system_alias release len str int float bool repr sorted range list dict set tuple sum min max ' +
      'abs round enumerate zip hex oct bin chr ord upper lower split join strip replace startswith endswith keys values items ' +
      'format math sqrt pi floor ceil datetime date now today isoformat time re match search findall sub group pprint string ' +
      'load stdin read open with csv DictReader reader writer ' +
      'True False None for in if else elif and or not is import from as'
    ).split(' '),
  ),
  JavaScript: new Set(
    (
      'console log error info JSON stringify parse process version versions platform arch argv cwd execPath require resolve ' +
      'join dirname basename extname Math max min floor ceil round abs sqrt Date now toISOString new Number String Object keys ' +
      'values entries length typeof const let var true false null undefined map filter reduce toString toFixed split trim ' +
      'toUpperCase toLowerCase includes Array from isArray of if else return node name ' +
      'dependencies devDependencies scripts main engines cpus hostname totalmem freemem type release EOL ' +
      'fs readFileSync readdirSync existsSync v8 uv zlib openssl modules napi icu unicode'
    ).split(' '),
  ),
  PHP: new Set(
    (
      'echo print print_r var_dump PHP_VERSION PHP_EOL PHP_OS PHP_OS_FAMILY PHP_INT_MAX PHP_INT_SIZE PHP_BINARY ' +
      'phpversion php_uname php_sapi_name php_ini_loaded_file extension_loaded get_loaded_extensions implode ' +
      'json_encode ini_get count sort'
    ).split(' '),
  ),
};
const PURE_MODULES = /^(json|sys|platform|math|datetime|re|pprint|string|csv)$/;
// Only the manifest: a planted `x.json` symlink to a `.js` file would be run by require.
const PURE_REQUIRE = /^(path|util|os|fs|\.\/package\.json)$/;
/** The file reads a printing script may make: each names a literal path (checked where it is). */
const FILE_READ: Record<string, { read: RegExp; any: RegExp }> = {
  JavaScript: {
    read: /\b(readFileSync|readdirSync|existsSync)\s*\(\s*(["'])([^"'\n]*)\2/g,
    any: /\b(?:readFileSync|readdirSync|existsSync)\b/g,
  },
  // `open("package.json")`, `open('x.json', 'r')`: read only, no other mode.
  Python: {
    read: /\b(open)\s*\(\s*(["'])([^"'\n]*)\2\s*(?:,\s*(["'])r[bt]?\4\s*)?\)/g,
    any: /\bopen\b/g,
  },
};

/**
 * `fs.readFileSync('package.json', 'utf8')`, `open("package.json")` read a file of the workspace
 * to print it: every read names a literal path inside the workspace that is not a secret (and
 * Python's `open` no mode but reading); any other use of fs has a name outside the pure list.
 */
function readsWorkspaceOnly(lang: string, code: string, cwd: string | null): boolean {
  const calls = FILE_READ[lang];
  if (!calls) return true;
  const reads = [...code.matchAll(calls.read)];
  if ((code.match(calls.any) ?? []).length !== reads.length) return false;
  return reads.every((m) => placeOf(m[3]!, cwd) === 'workspace' && !isSecretFile(m[3]!, cwd));
}

/**
 * `python -c 'import torch; print(torch.__version__)'`: a module imported only to print what it
 * says of itself. Importing runs the module's own code, as `python -m` would; nothing of it is
 * called. Returns the code with those imports and reads taken out; a module also used otherwise
 * stays, so the code is judged as written.
 */
const VERSION_READ = String.raw`\.(?:__version__|__file__|__path__|VERSION|version|get_version\(\))`;
function withoutVersionImports(code: string): string {
  let out = code;
  for (const m of code.matchAll(/^\s*import\s+([A-Za-z_][\w.]*)(?:\s+as\s+([A-Za-z_]\w*))?\s*(?:;|$)/gm)) {
    const module = m[1]!;
    if (PURE_MODULES.test(module)) continue;
    const name = (m[2] ?? module).replace(/\./g, '\\.');
    const uses = new RegExp(String.raw`(?<![\w.])${name}(?![\w])`, 'g');
    const reads = new RegExp(String.raw`(?<![\w.])${name}${VERSION_READ}`, 'g');
    const rest = code.replace(m[0], '');
    const read = (rest.match(reads) ?? []).length;
    if (read === 0 || (rest.match(uses) ?? []).length !== read) continue;
    out = out.replace(m[0], m[0].endsWith(';') ? ';' : '').replace(reads, '0');
  }
  return out;
}

export function printsOnly(lang: string, code: string, cwd: string | null = '.'): boolean {
  const names = PURE_NAMES[lang];
  if (!names || code.length > 2000) return false;
  if (lang === 'Python') code = withoutVersionImports(code);
  // PHP calls a string as a function (`"system"("id")`) and a variable holding one (`$f()`).
  if (lang === 'PHP' && /["']\s*\(|\$/.test(code)) return false;
  // Backslashes only as `\n` and `\t` (`join('\n')`): any other escape can spell a name the lists refuse.
  if (/`|\\(?![nt])/.test(code)) return false;
  if (lang === 'JavaScript') {
    // `require('path')['constructor']['constructor']('…')()`: in JavaScript a member named by a
    // string is a member like any other, so it must be a pure name too.
    for (const m of code.matchAll(/[\w$)\]]\s*\[\s*(["'])([^"'\n]*)\1/g))
      if (/^[A-Za-z_$][\w$]*$/.test(m[2]!) ? !names.has(m[2]!) : /[^\w@/.-]/.test(m[2]!)) return false;
  }
  if (!readsWorkspaceOnly(lang, code, cwd)) return false;
  const requires = [...code.matchAll(/\brequire\s*\(\s*(["'])([^"']*)\1\s*\)/g)];
  if (requires.some((m) => !PURE_REQUIRE.test(m[2]!) || m[2]!.includes('..'))) return false;
  if ((code.match(/\brequire\b/g) ?? []).length !== requires.length) return false;
  // String prefixes (`f"…"`, `rb'…'`) make strings code or bytes: a letter right before an opening quote.
  let prefixed = false;
  const stripped = code.replace(/(\w?)("[^"\n]*"|'[^'\n]*')/g, (_, p: string) => {
    if (p) prefixed = true;
    return `${p} 0`;
  });
  if (prefixed || /["']/.test(stripped)) return false;
  for (const m of stripped.matchAll(/\b(?:import|from)\s+([\w.]+)/g))
    if (!PURE_MODULES.test(m[1]!) && lang === 'Python') return false;
  for (const m of stripped.matchAll(/[A-Za-z_$][\w$]*/g)) {
    const id = m[0];
    if (id.length === 1 && /[a-z]/.test(id)) continue;
    if (!names.has(id) && !(lang === 'Python' && PURE_MODULES.test(id))) return false;
  }
  return true;
}

/** One `s/…/…/flags`, `tr/…/…/` or `y/…/…/` with any punctuation delimiter; the `e` flag (eval) is not allowed. */
const PERL_SUBSTITUTION =
  /^\s*(?:s([^\w\s])(?:\\.|(?!\1).)*\1(?:\\.|(?!\1).)*\1[gimsxr]*|(?:tr|y)([^\w\s])(?:\\.|(?!\2).)*\2(?:\\.|(?!\2).)*\2[cdsr]*)\s*$/;

/**
 * `perl -pi -e 's/\bfoo\b/bar/g' src/x.js`: Perl used as sed, text substitutions only. A
 * replacement is an interpolated string, so `@{[…]}`, `${\…}`, `(?{…})` and backticks (all code) are
 * refused, as is the `e` flag; where it writes is judged as sed -i's is (table/destinations.ts).
 */
export function substitutesOnly(code: string): boolean {
  if (code.length > 2000 || /@\{|\$\{|\(\?\??\{|`/.test(code)) return false;
  const parts = code.split(/;(?=\s*(?:s|tr|y)[^\w\s]|\s*$)/).filter((p) => p.trim());
  return parts.length > 0 && parts.every((p) => PERL_SUBSTITUTION.test(p) || PERL_FILTER.test(p));
}

/**
 * `perl -ne 'print if /TODO/'`: Perl used as grep, printing the lines a pattern matches. The
 * pattern holds no `(`, `@`, `{` or `$` but an end anchor, so nothing in it is interpolated or run.
 */
const PERL_FILTER =
  /^\s*print(?:\s+\$_)?\s+(?:if|unless)\s+(?:!\s*)?(?:m?\/(?:[^/\\(@${}]|\\[^(@${}])*\$?\/[imsx]*)\s*$/;
