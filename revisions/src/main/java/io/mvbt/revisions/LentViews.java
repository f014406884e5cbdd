// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Views of memory the store owns that a read lends to the caller: the value {@link ReadView#get}
 * wraps into the caller's buffer, and a {@link Cursor}'s key and value. Such memory is valid only
 * as long as its lender says: a snapshot's pages until the snapshot closes (then they may be reused
 * for other data); a write transaction's until its next change (its own pages change in place); a
 * cursor's until it moves.
 *
 * <p>Unchecked, lending is a plain wrap and nothing is remembered. In the checked mode
 * ({@link StoreOptions#checked}) each lent view is remembered, and when its memory stops being valid
 * ({@link #revoke}) a view still pointing there is wrapped around nothing, so that the caller's next
 * read of it throws {@link IndexOutOfBoundsException} instead of reading whatever the memory holds
 * by then. Up to {@link #REMEMBERED} views are remembered at a time (older ones are forgotten), so a
 * long scan stays in bounded memory: the check catches a stale view, it does not promise to.
 */
abstract class LentViews {
    /** Views remembered at most, per lender. */
    static final int REMEMBERED = 1024;

    private static final byte[] NOTHING = new byte[0];

    /** The lender for a view; remembering if {@code checked}. */
    static LentViews of(boolean checked) {
        return checked ? new Remembered(null) : UNCHECKED;
    }

    /** Wraps the caller's {@code buffer} around {@code length} bytes of store memory at {@code address}. */
    abstract void lend(UnsafeBuffer buffer, long address, int length);

    /**
     * A view of store memory (a cursor's own, rewrapped at every move) as it may be handed to the
     * caller: itself unchecked, a view of its own in the checked mode.
     */
    abstract DirectBuffer lend(DirectBuffer view);

    /** The memory lent so far stops being valid. */
    abstract void revoke();

    /** A lender for a cursor of this view: what it lends, this one revokes too. */
    abstract LentViews forCursor();

    private static final LentViews UNCHECKED = new LentViews() {
        @Override
        void lend(UnsafeBuffer buffer, long address, int length) {
            buffer.wrap(address, length);
        }

        @Override
        DirectBuffer lend(DirectBuffer view) {
            return view;
        }

        @Override
        void revoke() {
        }

        @Override
        LentViews forCursor() {
            return this;
        }
    };

    /** One lent view and where it was left. */
    private record Loan(UnsafeBuffer buffer, byte[] array, long address, int length) {
        boolean stillPointsThere() {
            return buffer.byteArray() == array && buffer.addressOffset() == address && buffer.capacity() == length;
        }
    }

    /** The checked mode's lender. Thread-safe: a snapshot is read from several threads at once. */
    private static final class Remembered extends LentViews {
        private final Remembered parent;
        private List<Loan> loans = new ArrayList<>();

        Remembered(Remembered parent) {
            this.parent = parent;
        }

        @Override
        void lend(UnsafeBuffer buffer, long address, int length) {
            buffer.wrap(address, length);
            remember(new Loan(buffer, null, address, length));
        }

        @Override
        DirectBuffer lend(DirectBuffer view) {
            UnsafeBuffer own = new UnsafeBuffer(view);
            remember(new Loan(own, own.byteArray(), own.addressOffset(), own.capacity()));
            return own;
        }

        private void remember(Loan loan) {
            synchronized (this) {
                if (loans.size() == REMEMBERED) {
                    forgetStale();
                }
                loans.add(loan);
            }
            if (parent != null) {
                parent.remember(loan);
            }
        }

        /** Drops loans the caller has rewrapped elsewhere, repeats, and (if still full) the older half. */
        private void forgetStale() {
            IdentityHashMap<UnsafeBuffer, Boolean> newer = new IdentityHashMap<>();
            List<Loan> kept = new ArrayList<>();
            for (int i = loans.size() - 1; i >= 0; i--) {
                Loan loan = loans.get(i);
                if (loan.stillPointsThere() && newer.put(loan.buffer(), Boolean.TRUE) == null) {
                    kept.add(loan);
                }
            }
            Collections.reverse(kept);
            loans = kept.size() < REMEMBERED ? kept : new ArrayList<>(kept.subList(REMEMBERED / 2, kept.size()));
        }

        @Override
        void revoke() {
            List<Loan> revoked;
            synchronized (this) {
                if (loans.isEmpty()) {
                    return;
                }
                revoked = loans;
                loans = new ArrayList<>();
            }
            for (Loan loan : revoked) {
                if (loan.stillPointsThere()) {
                    loan.buffer().wrap(NOTHING);
                }
            }
        }

        @Override
        LentViews forCursor() {
            return new Remembered(this);
        }
    }
}
