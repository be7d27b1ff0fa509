/** The module of undici that src/upstream/pool.ts loads, typed by undici's own declarations. */
declare module 'undici/lib/dispatcher/pool.js' {
  import { Pool } from 'undici';
  export default Pool;
}
