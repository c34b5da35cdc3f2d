/**
 * The posting folder's public surface, for the layers above and the facade.
 */
export {
  currentOperatorContext,
  requireOperatorContext,
  runWithOperatorContext,
  type OperatorContext,
} from './operator-context.ts';
export {
  MAX_MESSAGE_LENGTH,
  buildEventBody,
  cutMessage,
  isAboutEvent,
  type EventBody,
  type EventType,
  type QueuedEvent,
} from './events.ts';
export { event, exception, info, warn, type EventObjects } from './helpers.ts';
export { postEventVia, type EventApi } from './kube.ts';
export { eventTypeOfLevel, loggingTap } from './loggers.ts';
export { EventPoster, type EventPosterOptions, type NewEvent, type PostEvent, type PostingStats } from './poster.ts';
