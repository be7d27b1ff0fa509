/** Polls until `condition` turns false or `deadline` (epoch ms) passes: how a shutdown waits for work in flight. */
export async function waitWhile(condition: () => boolean, deadline: number): Promise<void> {
  while (condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
}
