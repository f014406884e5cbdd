// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.nio.file.Path;
import java.time.Duration;

/**
 * A writer process for {@link RunsAcrossMappingsTest}: {@code PATH KEY SIZE} opens the store as one
 * of the writers that take turns, puts a value of SIZE bytes ({@link RunsAcrossMappingsTest#value})
 * under KEY in tree "v", commits with SYNC and prints {@code OK revision}, or {@code FAIL why}.
 */
public final class ValueChild {
    private ValueChild() {
    }

    public static void main(String[] args) {
        try (Store store = Store.open(Path.of(args[0]), StoreOptions.defaults().sharedWriters(true)
                .writeTimeout(Duration.ofSeconds(30)))) {
            try (WriteTxn tx = store.beginWrite()) {
                tx.put(tx.createTreeIfAbsent("v"), args[1].getBytes(), RunsAcrossMappingsTest.value(
                        Integer.parseInt(args[2]), args[1].hashCode()));
                tx.commit(Durability.SYNC);
                System.out.println("OK " + tx.revision());
            }
        } catch (Throwable t) {
            System.out.println("FAIL " + t);
        }
    }
}
