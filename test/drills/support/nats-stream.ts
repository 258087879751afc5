// A test's own JetStream stream on the shared NATS: names that no other test file uses, and
// the stream deleted afterwards.
import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

export const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** NATS_URL, NATS_STREAM and NATS_SUBJECT_PREFIX for a fresh stream named after `label`. */
export function ownStream(label: string): { NATS_URL: string; NATS_STREAM: string; NATS_SUBJECT_PREFIX: string } {
  const tag = randomBytes(4).toString('hex');
  return {
    NATS_URL,
    NATS_STREAM: `T_${label.toUpperCase()}_${tag}`,
    NATS_SUBJECT_PREFIX: `${label.toLowerCase()}${tag}`,
  };
}

/** Deletes the stream (and its consumers); missing streams are fine. */
export async function deleteStream(stream: string): Promise<void> {
  const nc = await connect({ servers: NATS_URL });
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(stream).catch(() => {});
  } finally {
    await nc.close();
  }
}
