/**
 * Lines a person must read to get going, such as a sandbox's keys, written to `primary` and also
 * to the other stream unless both are terminals (then likely the same screen): under tee, Docker,
 * nohup or an IDE task one of them may reach no one, and the other still does.
 */
export function tellPerson(text: string, primary: 'stdout' | 'stderr'): void {
  const streams = primary === 'stdout' ? [process.stdout, process.stderr] : [process.stderr, process.stdout];
  streams[0].write(text);
  if (!(process.stdout.isTTY && process.stderr.isTTY)) streams[1].write(text);
}
