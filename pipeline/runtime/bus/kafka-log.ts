/**
 * kafkajs's logger, routed into pino. Levels map ERROR→error, WARN→warn, INFO→debug (kafkajs
 * announces every start, join and stop at INFO), DEBUG→trace; kafkajs is told to produce
 * only what pino will write, so its DEBUG protocol dumps cost nothing unless trace is on.
 * Errors that kafkajs logs at ERROR and then handles itself go lower: an error response to
 * a request (a heartbeat answered "rebalancing") to debug, a connection failure it retries
 * to warn. When kafkajs gives up, it and the bus report that at error.
 */
import kafkajs, { type LogEntry, type logCreator, type logLevel as LogLevel } from 'kafkajs';
import type { Logger } from '../log.js';

const { logLevel } = kafkajs;

/** The kafkajs level that matches what `log` writes. */
export function kafkaLogLevel(log: Logger): LogLevel {
  if (log.isLevelEnabled('trace')) return logLevel.DEBUG;
  if (log.isLevelEnabled('debug')) return logLevel.INFO;
  if (log.isLevelEnabled('warn')) return logLevel.WARN;
  if (log.isLevelEnabled('error')) return logLevel.ERROR;
  return logLevel.NOTHING;
}

const HANDLED_BY_KAFKAJS = new Set(['Connection', 'BrokerPool', 'Cluster']);

export function kafkaLogCreator(log: Logger): logCreator {
  return () =>
    ({ namespace, level, log: entry }: LogEntry) => {
      const { message, timestamp: _timestamp, logger: _logger, ...extra } = entry;
      const fields = { kafkajs: namespace, ...extra };
      if (level === logLevel.ERROR) {
        if (namespace === 'Connection' && message.startsWith('Response ')) log.debug(fields, message);
        else if (HANDLED_BY_KAFKAJS.has(namespace)) log.warn(fields, message);
        else log.error(fields, message);
      } else if (level === logLevel.WARN) log.warn(fields, message);
      else if (level === logLevel.INFO) log.debug(fields, message);
      else log.trace(fields, message);
    };
}
