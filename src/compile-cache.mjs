// Loaded with `node --import` before src/main.ts (package.json `start`). With Node's compile
// cache on, a module whose source is unchanged since an earlier start is read back already
// stripped of its types and compiled: the type stripper (a WebAssembly module that keeps about
// 18 MB resident for the life of the process) is then never loaded. JavaScript, not TypeScript,
// so that loading this file does not load the stripper itself. Node keeps the cache under
// os.tmpdir() unless NODE_COMPILE_CACHE names a directory; if it cannot, it goes on without one.
import { enableCompileCache } from 'node:module'

enableCompileCache()
