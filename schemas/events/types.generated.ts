// GENERATED FILE, DO NOT EDIT.
// Written by `npm run gen:events` (infra/codegen/gen-events.ts) from the newest
// schemas/events/<EventName>/v<N>.avsc of each event. test/pipeline/codec.contracts.test.ts
// fails when this file differs from what the generator produces now.

import type { ExtractRequested } from './ExtractRequested/types.generated.js';
import type { FetchRequested } from './FetchRequested/types.generated.js';
import type { IntelRequested } from './IntelRequested/types.generated.js';
import type { JobEvent } from './JobEvent/types.generated.js';
import type { LeadsRequested } from './LeadsRequested/types.generated.js';
import type { MapRequested } from './MapRequested/types.generated.js';
import type { MentionsFound } from './MentionsFound/types.generated.js';
import type { MentionsStored } from './MentionsStored/types.generated.js';
import type { MonitorCheckRequested } from './MonitorCheckRequested/types.generated.js';
import type { MonitorChecked } from './MonitorChecked/types.generated.js';
import type { PageFetched } from './PageFetched/types.generated.js';
import type { ParseRequested } from './ParseRequested/types.generated.js';
import type { Reply } from './Reply/types.generated.js';
import type { ScrapeRequested } from './ScrapeRequested/types.generated.js';
import type { SearchRequested } from './SearchRequested/types.generated.js';
import type { SocialRequested } from './SocialRequested/types.generated.js';
import type { TestPing } from './TestPing/types.generated.js';
import type { WatchCollectRequested } from './WatchCollectRequested/types.generated.js';

export type { ExtractRequested, FetchRequested, IntelRequested, JobEvent, LeadsRequested, MapRequested, MentionsFound, MentionsStored, MonitorCheckRequested, MonitorChecked, PageFetched, ParseRequested, Reply, ScrapeRequested, SearchRequested, SocialRequested, TestPing, WatchCollectRequested };

/** Every event type, one per folder in schemas/events/. */
export const EVENT_NAMES = ['ExtractRequested', 'FetchRequested', 'IntelRequested', 'JobEvent', 'LeadsRequested', 'MapRequested', 'MentionsFound', 'MentionsStored', 'MonitorCheckRequested', 'MonitorChecked', 'PageFetched', 'ParseRequested', 'Reply', 'ScrapeRequested', 'SearchRequested', 'SocialRequested', 'TestPing', 'WatchCollectRequested'] as const;

export type EventName = (typeof EVENT_NAMES)[number];

/** The newest schema version of each event: what is written, and what every version is read as. */
export const CURRENT_VERSIONS = {
  ExtractRequested: 1,
  FetchRequested: 2,
  IntelRequested: 1,
  JobEvent: 1,
  LeadsRequested: 1,
  MapRequested: 1,
  MentionsFound: 2,
  MentionsStored: 2,
  MonitorCheckRequested: 2,
  MonitorChecked: 2,
  PageFetched: 5,
  ParseRequested: 1,
  Reply: 1,
  ScrapeRequested: 4,
  SearchRequested: 1,
  SocialRequested: 1,
  TestPing: 1,
  WatchCollectRequested: 2,
} as const satisfies Record<EventName, number>;

/** Event name → the value of its current version. */
export interface EventValues {
  ExtractRequested: ExtractRequested;
  FetchRequested: FetchRequested;
  IntelRequested: IntelRequested;
  JobEvent: JobEvent;
  LeadsRequested: LeadsRequested;
  MapRequested: MapRequested;
  MentionsFound: MentionsFound;
  MentionsStored: MentionsStored;
  MonitorCheckRequested: MonitorCheckRequested;
  MonitorChecked: MonitorChecked;
  PageFetched: PageFetched;
  ParseRequested: ParseRequested;
  Reply: Reply;
  ScrapeRequested: ScrapeRequested;
  SearchRequested: SearchRequested;
  SocialRequested: SocialRequested;
  TestPing: TestPing;
  WatchCollectRequested: WatchCollectRequested;
}
