// A shard worker thread (piscina, one thread per pool) running one shard (src/shard/shard.ts)
// with its own connection pools. Runs with piscina `atomics: 'disabled'` so that between tasks
// the thread runs its event loop: commits, deadlines and breaker timers fire while it is idle.

import { pino } from 'pino';
import { Piscina } from 'piscina';
import type { DecisionCore } from '../decision/model/contract.js';
import type { ShardWorkerData } from './protocol.js';
import { createShard } from './shard.js';

const data = Piscina.workerData as ShardWorkerData;
const log = pino({ level: data.logLevel, base: { service: 'asas', shard: data.shard } });
const { decisionCore } = (await import(data.coreModule)) as { decisionCore: DecisionCore<unknown> };
const shard = await createShard(data, decisionCore, log);

export default shard.handle;
