// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.List;

import static org.agrona.UnsafeAccess.UNSAFE;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import io.mvbt.btree.Overflow;
import io.mvbt.btree.TreeDiff;
import io.mvbt.btree.TreeReader;
import io.mvbt.btree.TreeRoot;

/**
 * Compares two snapshots of one store for {@link Snapshot#diff}: the catalogs by tree name, then
 * each tree present in both with a {@link TreeDiff}, handing the visitor views of page memory.
 * One diff at a time; the caller holds both snapshots usable throughout.
 */
final class RevisionDiff {
    private final CountingReader olderReader;
    private final CountingReader newerReader;
    private final TreeDiff treeDiff = new TreeDiff();
    /** In the checked mode, fails the views handed to the visitor once its call returns. */
    private final LentViews lender;
    private final UnsafeBuffer key = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer olderValue = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer newerValue = new UnsafeBuffer(0, 0);
    /** Copies of values spread over several overflow runs, one per side. */
    private byte[] olderCopy = new byte[0];
    private byte[] newerCopy = new byte[0];

    RevisionDiff(Snapshot older, Snapshot newer) {
        this.olderReader = new CountingReader(older.reader());
        this.newerReader = new CountingReader(newer.reader());
        this.lender = LentViews.of(older.store.options().checked());
    }

    /** Every user tree: created and dropped ones as events, the others key by key; in tree name order. */
    DiffStats all(TreeRoot olderCatalog, FreshRoots olderFresh, TreeRoot newerCatalog, FreshRoots newerFresh,
            DiffVisitor visitor) {
        List<Catalog.Entry> a = Catalog.list(olderReader, olderCatalog, olderFresh, false);
        List<Catalog.Entry> b = Catalog.list(newerReader, newerCatalog, newerFresh, false);
        long catalogPages = olderReader.reads() + newerReader.reads();
        DiffStats total = new DiffStats(0, catalogPages, 0, 0);
        int i = 0;
        int j = 0;
        // Catalog keys are the UTF-8 names, in byte order, so both lists are sorted alike.
        while (i < a.size() || j < b.size()) {
            int c = i == a.size() ? 1 : j == b.size() ? -1
                    : java.util.Arrays.compareUnsigned(utf8(a.get(i).name), utf8(b.get(j).name));
            if (c < 0) {
                total = total.plus(tree(a.get(i).name, a.get(i).root, Revision.ABSENT, visitor));
                i++;
            } else if (c > 0) {
                total = total.plus(tree(b.get(j).name, Revision.ABSENT, b.get(j).root, visitor));
                j++;
            } else {
                total = total.plus(tree(a.get(i).name, a.get(i).root, b.get(j).root, visitor));
                i++;
                j++;
            }
        }
        return total;
    }

    private static byte[] utf8(String name) {
        return name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** One tree; a root of {@link Revision#ABSENT} is a tree the revision lacks (not both). */
    DiffStats tree(String name, TreeRoot older, TreeRoot newer, DiffVisitor visitor) {
        if (newer == Revision.ABSENT) {
            visitor.treeDropped(name, older.entries);
            return new DiffStats(1, 0, 0, 0);
        }
        long changes = 0;
        if (older == Revision.ABSENT) {
            visitor.treeCreated(name);
            changes++;
        }
        long readsBefore = olderReader.reads() + newerReader.reads();
        long[] reported = {0};
        treeDiff.diff(olderReader, older == Revision.ABSENT ? new TreeRoot() : older, newerReader, newer,
                (keyAddress, keyLength, olderEntry, newerEntry) -> {
                    key.wrap(keyAddress, keyLength);
                    DirectBuffer before = olderEntry == 0 ? null : view(olderReader, olderEntry, true);
                    DirectBuffer after = newerEntry == 0 ? null : view(newerReader, newerEntry, false);
                    try {
                        visitor.changed(name, lender.lend(key), before == null ? null : lender.lend(before),
                                after == null ? null : lender.lend(after));
                    } finally {
                        lender.revoke();
                    }
                    reported[0]++;
                });
        long reads = olderReader.reads() + newerReader.reads() - readsBefore;
        return new DiffStats(changes + reported[0], reads, treeDiff.subtreesSkipped(),
                treeDiff.overflowValuesCompared());
    }

    /** The value of a leaf entry: in place when it is inline or one overflow run, else copied. */
    private DirectBuffer view(CountingReader reader, long entry, boolean older) {
        UnsafeBuffer view = older ? olderValue : newerValue;
        int length = TreeReader.valueLength(entry);
        long at = TreeReader.valueAddress(entry);
        if (!TreeReader.isOverflow(entry)) {
            view.wrap(at, length);
            return view;
        }
        long pageNo = UNSAFE.getLong(at);
        long revision = UNSAFE.getLong(at + 8);
        long contiguous = Overflow.contiguousAddress(reader, pageNo, revision, length);
        if (contiguous != 0) {
            view.wrap(contiguous, length);
            return view;
        }
        byte[] copy = older ? olderCopy : newerCopy;
        if (copy.length < length) {
            copy = new byte[length];
            if (older) {
                olderCopy = copy;
            } else {
                newerCopy = copy;
            }
        }
        Overflow.read(reader, pageNo, revision, length, copy, View.BYTE_BASE);
        view.wrap(copy, 0, length);
        return view;
    }
}
