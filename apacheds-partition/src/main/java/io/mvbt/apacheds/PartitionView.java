// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import io.mvbt.revisions.ReadView;
import io.mvbt.revisions.Store;

/**
 * What an ApacheDS transaction of an mvbt partition reads: a snapshot for a read, the open write
 * transaction (its own changes included) for a write. Cursors hold the view they were made on
 * ({@link #retain}) so that it outlives the transaction ApacheDS closes before it reads them.
 */
interface PartitionView {
    ReadView view();

    /** The store read: a table of another partition's store must not read this view. */
    Store store();

    /** One more cursor reads this view: it stays open until {@link #release}. */
    void retain();

    void release();
}
