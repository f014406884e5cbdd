// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * One expiry run over a history table, in place and without a pause. The table is taken in
 * hash-ordered pages: each page is read on a fresh snapshot (no lock), the policy decides on it
 * there, and only the page's changes are applied in one short write transaction, which re-checks
 * each entry it changes (a writer may have replaced it since the snapshot) and decides again for
 * one that changed. The next page starts after the last hash of this one, so entries written
 * meanwhile are simply met (or not) in order, and nothing is visited twice.
 *
 * <p>INN's two horizons: an article the policy drops becomes remembered, and a remembered entry
 * (including one just dropped) whose posting time, or arrival time if the posting time is not
 * known, is before {@code now - rememberDays} is deleted (hisv6's expire callback).
 */
final class Expirer {
    private enum Outcome { KEPT, REWRITTEN, TO_REMEMBERED, DELETED, REMEMBERED_KEPT }

    /** A decision for one entry: what happens, and the new value (null to delete or to leave alone). */
    private record Decision(Outcome outcome, byte[] value) {
    }

    private final HistoryTable table;
    private final ExpiryPolicy policy;
    private final ExpireOptions options;
    private long now;
    private long threshold;
    private long examined;
    private long kept;
    private long rewritten;
    private long toRemembered;
    private long deleted;
    private long rememberedKept;
    private long transactions;
    private long startNanos;

    Expirer(HistoryTable table, ExpiryPolicy policy, ExpireOptions options) {
        if (policy == null) {
            throw new IllegalArgumentException("expiry policy is null");
        }
        if (options == null) {
            throw new IllegalArgumentException("expire options are null");
        }
        this.table = table;
        this.policy = policy;
        this.options = options;
    }

    ExpireReport run() {
        startNanos = System.nanoTime();
        now = options.clock().instant().getEpochSecond();
        threshold = now - Math.round(options.rememberDays() * 86_400);
        int pageSize = options.pageSize();
        byte[] after = null;
        while (true) {
            List<HistoryEntry> page = new ArrayList<>(Math.min(pageSize, 4096));
            try (HistoryReader reader = table.reader()) {
                reader.walkAfter(after, pageSize, page::add);
            }
            if (page.isEmpty()) {
                break;
            }
            after = page.get(page.size() - 1).hashRef();
            List<HistoryEntry> changing = new ArrayList<>();
            List<Decision> changes = new ArrayList<>();
            for (HistoryEntry e : page) {
                examined++;
                Decision d = decide(e);
                if (d.outcome == Outcome.KEPT || d.outcome == Outcome.REMEMBERED_KEPT || options.dryRun()) {
                    tally(d.outcome);
                } else {
                    changing.add(e);
                    changes.add(d);
                }
            }
            if (!changing.isEmpty()) {
                apply(changing, changes);
            }
            options.progress().accept(report());
            if (page.size() < pageSize) {
                break;
            }
        }
        return report();
    }

    /** Applies one page's changes in one transaction, deciding again for entries changed since the snapshot. */
    private void apply(List<HistoryEntry> entries, List<Decision> decisions) {
        List<Outcome> outcomes = new ArrayList<>(entries.size());
        try (HistoryBatch batch = table.beginBatch()) {
            for (int i = 0; i < entries.size(); i++) {
                HistoryEntry seen = entries.get(i);
                byte[] hash = seen.hashRef();
                byte[] current = batch.get(hash);
                if (current == null) {
                    // A writer deleted it meanwhile: nothing was decided for it after all, so that
                    // examined stays the sum of the outcomes.
                    examined--;
                    continue;
                }
                Decision d = decisions.get(i);
                HistoryEntry stored = EntryCodec.decode(hash, new UnsafeBuffer(current));
                if (!stored.equals(seen)) {
                    d = decide(stored);
                }
                if (d.outcome == Outcome.DELETED) {
                    batch.delete(hash, current);
                } else if (d.value != null) {
                    batch.put(hash, current, d.value);
                }
                outcomes.add(d.outcome);
            }
            batch.commit();
        }
        transactions++;
        for (Outcome o : outcomes) {
            tally(o);
        }
    }

    private Decision decide(HistoryEntry e) {
        if (e.isRemembered()) {
            return pastHorizon(e) ? new Decision(Outcome.DELETED, null) : new Decision(Outcome.REMEMBERED_KEPT, null);
        }
        ExpiryDecision d = policy.decide(e, now);
        if (d == null) {
            throw new IllegalStateException("the expiry policy returned no decision for " + e);
        }
        switch (d.kind()) {
            case KEEP:
                return new Decision(Outcome.KEPT, null);
            case REWRITE:
                if (d.token().equals(e.token()) && d.expires() == e.expires()) {
                    return new Decision(Outcome.KEPT, null);
                }
                return new Decision(Outcome.REWRITTEN, EntryCodec.encode(e.arrived(), e.posted(), d.expires(), d.token()));
            case REMEMBER:
            default:
                HistoryEntry r = e.toRemembered();
                return pastHorizon(r) ? new Decision(Outcome.DELETED, null)
                        : new Decision(Outcome.TO_REMEMBERED, EntryCodec.encode(r));
        }
    }

    private boolean pastHorizon(HistoryEntry remembered) {
        return remembered.rememberTime() < threshold;
    }

    private void tally(Outcome o) {
        switch (o) {
            case KEPT -> kept++;
            case REWRITTEN -> {
                kept++;
                rewritten++;
            }
            case TO_REMEMBERED -> toRemembered++;
            case DELETED -> deleted++;
            case REMEMBERED_KEPT -> rememberedKept++;
            default -> throw new IllegalStateException(o.name());
        }
    }

    private ExpireReport report() {
        return new ExpireReport(examined, kept, rewritten, toRemembered, deleted, rememberedKept, transactions,
                options.dryRun(), Duration.ofNanos(System.nanoTime() - startNanos));
    }
}
