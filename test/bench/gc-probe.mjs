// Preloaded by the bench into a measured server (node --expose-gc --import): on SIGUSR2 it forces
// a full GC and writes the RSS to stderr, so memory is read after collection without any hook in
// the server itself.
process.on('SIGUSR2', () => {
  globalThis.gc();
  globalThis.gc();
  const { rss, heapUsed } = process.memoryUsage();
  process.stderr.write(`\nbench-rss ${rss} ${heapUsed}\n`);
});
