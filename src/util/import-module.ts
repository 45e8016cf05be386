/** Where bin/bundle-load.js puts an import() of its own for the bundled CLI. */
const OUTSIDE = Symbol.for('agent-logbook.import');

/**
 * `import(specifier)` for a package, a node: module or a file URL. The bundled CLI runs as a script with a V8 code
 * cache (bin/bundle-load.js), and Node 20's V8 forgets, in a function read from a code cache, what an import()
 * there needs ("A dynamic import callback was not specified"): such a call goes through a function of the
 * launcher's, outside the cached script. From the sources, a plain import().
 */
export function importModule<T>(specifier: string): Promise<T> {
  const outside = (globalThis as { [OUTSIDE]?: (specifier: string) => Promise<unknown> })[OUTSIDE];
  return (outside ? outside(specifier) : import(specifier)) as Promise<T>;
}
