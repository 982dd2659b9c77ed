import type { Connection } from '../sources/mcp/open-connection.js';

/**
 * Every connection the command opens, so that each is closed: at the end of its check, on SIGINT /
 * SIGTERM, or as soon as it arrives when its check gave up waiting for it. Closing a stdio
 * connection stops the server's process group.
 */
export class ConnectionTracker {
  private readonly open = new Set<Connection>();
  private readonly late: Promise<void>[] = [];

  /** Tracks a connection being opened, so that it is closed at the end whatever its check does. */
  watch(opening: Promise<Connection>): void {
    opening.then(
      (connection) => void this.open.add(connection),
      () => {},
    );
  }

  /** Closes one connection (never throws). */
  async close(connection: Connection): Promise<void> {
    this.open.delete(connection);
    await connection.close().catch(() => {});
  }

  /** For a check that timed out while connecting: close the connection if it ever arrives. */
  closeWhenOpen(opening: Promise<Connection>): void {
    this.late.push(
      opening.then(
        (connection) => this.close(connection),
        () => {},
      ),
    );
  }

  /** Closes every connection still open (the command is interrupted). */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.open].map((connection) => this.close(connection)));
  }

  /** Waits for late connections to be closed, at most `maxMs`. */
  async settle(maxMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(this.late),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, maxMs);
      }),
    ]);
    clearTimeout(timer);
  }
}
