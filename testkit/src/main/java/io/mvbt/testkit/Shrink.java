// SPDX-License-Identifier: Apache-2.0
package io.mvbt.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Shrinks a failing list of operations for the model tests: drops chunks of it, halving the chunk
 * size, while the list still fails, and returns the smallest list found.
 */
public final class Shrink {
    private Shrink() {
    }

    public static <T> List<T> failing(List<T> ops, Predicate<List<T>> fails) {
        List<T> current = new ArrayList<>(ops);
        for (int chunk = Math.max(1, current.size() / 2); chunk >= 1; chunk /= 2) {
            boolean removed = true;
            while (removed) {
                removed = false;
                for (int start = 0; start < current.size(); start += chunk) {
                    List<T> candidate = new ArrayList<>(current.subList(0, start));
                    candidate.addAll(current.subList(Math.min(current.size(), start + chunk), current.size()));
                    if (fails.test(candidate)) {
                        current = candidate;
                        removed = true;
                        break;
                    }
                }
            }
        }
        return current;
    }
}
