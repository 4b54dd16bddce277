/**
 * Tab completion in `herald chat`: a line that starts with `/` and has no space yet completes to
 * the slash commands it begins (readline's completer shows them all when several match). Other
 * lines complete to nothing: a message is the person's own text.
 */
export function slashCompleter(commands: readonly string[]): (line: string) => [string[], string] {
  const names = [...new Set(commands)].sort();
  return (line: string) => {
    if (!line.startsWith('/') || /\s/.test(line)) return [[], line];
    return [names.filter((c) => c.startsWith(line)), line];
  };
}
