import { ActivityFeed } from '../../operations/observe/activity-feed.js';
import type { FeatureFactory } from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    /** The recent tool calls, for the console's live log. */
    activity: ActivityFeed;
  }
}

/** The console's live log of recent calls, in the outermost slot: it sees every outcome. */
export const activityFeed: FeatureFactory = (_config, parts) => {
  // The masker grows on reload (new secrets), so it is read per call, not copied.
  const { maskSecrets } = parts.gateway;
  const activity = parts.provide('activity', new ActivityFeed({ mask: (text) => maskSecrets(text) }));
  return { name: 'activity-feed', middleware: { activity: activity.middleware } };
};
