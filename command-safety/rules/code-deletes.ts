/**
 * Interpreter code that deletes the root, a system folder or a home recursively
 * (`shutil.rmtree("/")`, `rmtree($ENV{HOME})`, `fs.rmSync(os.homedir(), {recursive: true})`,
 * `FileUtils.rm_rf(Dir.home)`): `rm -rf ~` in another language, as hardline as the shell spelling.
 * Other inline code still asks (code.ts); this only decides when it is never allowed. The calls
 * and the ways to name a home are data, each list tried on the first argument of the call.
 */
import { placeOf } from '../paths.js';

/** Library calls that delete a folder and everything in it, in the languages the gate runs inline. */
const RECURSIVE_DELETE_CALLS = [
  'shutil\\.rmtree', // Python
  'rmtree', // Python (imported), Perl File::Path
  'remove_tree', // Perl File::Path
  'FileUtils\\.rm_rf', // Ruby
  'FileUtils\\.rm_r',
  'FileUtils\\.remove_dir',
  'FileUtils\\.remove_entry(?:_secure)?',
  'rmSync', // Node (`fs.rmSync`, `require('fs').rmSync`)
  'rmdirSync',
  '(?:fs|fsp|promises)\\.rm',
  'rimraf(?:\\.sync)?',
  'os\\.RemoveAll', // Go
  'remove_dir_all', // Rust
  'Directory\\.Delete', // .NET
  'FileUtils\\.deleteDirectory', // Java commons-io
  'unlink(?=\\s*\\([^)]*\\brecursive\\s*=\\s*T)', // R, only with `recursive = TRUE`
  '(?:fs::)?dir_delete', // R fs
];

const CALL = new RegExp(`(?<!\\w)(?:${RECURSIVE_DELETE_CALLS.join('|')})\\s*\\(\\s*((?:[^(),]|\\([^()]*\\))*)`, 'g');

/** Expressions that are the user's home, written out as a call's whole first argument. */
const HOME_EXPRESSIONS = [
  /^\$ENV\{\s*(["']?)HOME\1\s*\}$/, // Perl
  /^(?:os\.)?environ(?:\.get)?\s*[[(]\s*(["'])HOME\1\s*[\])]$/, // Python
  /^(?:os\.)?getenv\s*\(\s*(["'])HOME\1\s*\)$/,
  /^(?:os\.path\.)?expanduser\s*\(\s*(["'])~\/?\1\s*\)$/,
  /^(?:str\s*\(\s*)?(?:pathlib\.)?Path\s*\.\s*home\s*\(\s*\)\s*\)?$/,
  /^(?:require\s*\(\s*(["'])(?:node:)?os\1\s*\)|os)\s*\.\s*homedir\s*\(\s*\)$/, // Node
  /^process\.env(?:\.HOME|\[\s*(["'])HOME\1\s*\])$/,
  /^Dir\.home$/, // Ruby
  /^ENV\s*\[\s*(["'])HOME\1\s*\]$/,
  /^File\.expand_path\s*\(\s*(["'])~\/?\1\s*\)$/,
  /^Sys\.getenv\s*\(\s*(["'])HOME\1\s*\)$/, // R
  /^path\.expand\s*\(\s*(["'])~\/?\1\s*\)$/,
];

/** A quoted literal path (`'/'`, `"$ENV{HOME}"` as Perl interpolates it). */
const QUOTED = /^(["'`])(.*)\1$/s;

/** Where the code deletes the root, a system folder or a home: the call as written, or undefined. */
export function codeDeletesRoot(code: string, cwd: string | null): string | undefined {
  for (const m of code.matchAll(CALL)) {
    const arg = m[1]!.trim();
    const quoted = QUOTED.exec(arg);
    if (quoted) {
      // Perl and shell-like strings interpolate `$HOME` and `$ENV{HOME}`; a literal `~` is the home in intent.
      const path = quoted[2]!.replace(/^(?:\$ENV\{\s*(["']?)HOME\1\s*\}|\$\{?HOME\}?)(?=\/|$)/, '~');
      const place = placeOf(path, cwd);
      if (place === 'root' || place === 'system' || place === 'home') return m[0];
    } else if (HOME_EXPRESSIONS.some((re) => re.test(arg))) return m[0];
  }
  return undefined;
}
