// Which shard (worker thread) owns an agent: FNV-1a over the agent id, so the mapping is stable
// across restarts and the same on every thread that computes it.

/** 32-bit FNV-1a hash of a string's UTF-16 code units. */
export function hashId(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Index in [0, shards) of the shard that owns `agentId`. */
export function shardOf(agentId: string, shards: number): number {
  return shards === 1 ? 0 : hashId(agentId) % shards;
}
