// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

/**
 * Two values, as one key of a tree through {@link Codecs#pair}: ordered by {@code first}, then by
 * {@code second}.
 */
public record Pair<A, B>(A first, B second) {
}
