// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * The JDK Flight Recorder events of a store, category "mvbt": what a commit, a checkpoint, a sync
 * and the slow-reader policy did and how long it took. Without a recording each costs a check of a
 * flag the JIT folds away. Commits are many: their event is off unless a recording turns it on
 * ({@code jfr configure} or {@code +io.mvbt.Commit#enabled=true}).
 */
final class StoreEvents {
    private StoreEvents() {
    }

    @Name("io.mvbt.Commit")
    @Label("Commit")
    @Category("mvbt")
    @Description("A write transaction published a revision")
    @Enabled(false)
    @StackTrace(false)
    static final class Commit extends Event {
        @Label("Store")
        String store;
        @Label("Revision")
        long revision;
        @Label("Durability")
        String durability;
        @Label("Pages written")
        long pages;
        @Label("Recorded in the redo log")
        boolean logged;
    }

    @Name("io.mvbt.Checkpoint")
    @Label("Checkpoint")
    @Category("mvbt")
    @Description("Pages written since the durable revision were sealed and synced, and a steady meta written")
    @StackTrace(false)
    static final class Checkpoint extends Event {
        @Label("Store")
        String store;
        @Label("Revision made durable")
        long revision;
        @Label("Durable before")
        long since;
    }

    @Name("io.mvbt.Sync")
    @Label("Sync")
    @Category("mvbt")
    @Description("Store.sync(): every commit so far made durable, by the redo log or a checkpoint")
    @StackTrace(false)
    static final class Sync extends Event {
        @Label("Store")
        String store;
        @Label("Revision")
        long revision;
        @Label("By the redo log")
        boolean logged;
    }

    @Name("io.mvbt.SlowReader")
    @Label("Slow reader")
    @Category("mvbt")
    @Description("The slow-reader policy reported a snapshot that holds an old revision, and maybe expired it")
    static final class SlowReader extends Event {
        @Label("Revision held")
        long revision;
        @Label("Revisions behind")
        long lag;
        @Label("Age (ms)")
        long ageMillis;
        @Label("Process")
        long pid;
        @Label("Thread id")
        long threadId;
        @Label("Expired")
        boolean expired;
    }

    @Name("io.mvbt.RedoReplay")
    @Label("Redo log replay")
    @Category("mvbt")
    @Description("An open replayed the records of a redo log above the revision recovery chose")
    @StackTrace(false)
    static final class Replay extends Event {
        @Label("Store")
        String store;
        @Label("Commits replayed")
        long commits;
        @Label("Opened at")
        long from;
    }
}
