// SPDX-License-Identifier: Apache-2.0
package io.mvbt.bench;

import java.util.List;

/**
 * dbbench's fillrandom alone (one commit per entry, random order), with the store's size open and
 * once closed: the point of a curve that runs to sizes where the whole of dbbench would take
 * hours ({@code --suite fillrandom --entries 1M,10M,100M}).
 */
final class FillRandomSuite implements Suite {
    @Override
    public String name() {
        return "fillrandom";
    }

    @Override
    public List<String> phases() {
        return List.of("fillrandom");
    }

    @Override
    public void run(RunContext ctx) {
        KvStore db = ctx.open("fillrandom");
        DbBenchSuite.fillRandom(ctx, db, ctx.entries);
        ctx.footprint("fillrandom", db, ctx.entries);
        ctx.discardClosed(db, "fillrandom", "fillrandom", ctx.entries);
    }
}
