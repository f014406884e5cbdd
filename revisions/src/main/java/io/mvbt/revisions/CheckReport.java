// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.List;

import io.mvbt.CorruptionException;

/**
 * What {@link Store#check()} found.
 *
 * @param revision the revision checked
 * @param pagesChecked pages reached and validated
 * @param trees trees in the revision
 * @param entries entries in all trees
 * @param problems what is wrong; empty for a sound store
 */
public record CheckReport(long revision, long pagesChecked, int trees, long entries, List<String> problems) {
    public boolean ok() {
        return problems.isEmpty();
    }

    /** Throws {@link CorruptionException} listing the problems, if there are any. */
    public CheckReport throwIfDamaged() {
        if (!ok()) {
            throw new CorruptionException(-1, "integrity check of revision " + revision + " failed: "
                    + String.join("; ", problems.subList(0, Math.min(problems.size(), 20)))
                    + (problems.size() > 20 ? "; and " + (problems.size() - 20) + " more" : ""));
        }
        return this;
    }
}
