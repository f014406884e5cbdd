// SPDX-License-Identifier: Apache-2.0
package io.mvbt.history;

import java.util.Objects;

/** What an {@link ExpiryPolicy} decides for one article: keep it, drop it to remembered, or rewrite its token. */
public final class ExpiryDecision {
    /** The kinds of decision. */
    public enum Kind {
        /** The article stays as it is. */
        KEEP,
        /** The article is gone: its entry becomes remembered (and is deleted if past the remember horizon). */
        REMEMBER,
        /** The article stays with a new token and expiry time (it was moved, say). */
        REWRITE
    }

    private static final ExpiryDecision KEEP = new ExpiryDecision(Kind.KEEP, null, 0);
    private static final ExpiryDecision REMEMBER = new ExpiryDecision(Kind.REMEMBER, null, 0);

    private final Kind kind;
    private final StorageToken token;
    private final long expires;

    private ExpiryDecision(Kind kind, StorageToken token, long expires) {
        this.kind = kind;
        this.token = token;
        this.expires = expires;
    }

    public static ExpiryDecision keep() {
        return KEEP;
    }

    public static ExpiryDecision remember() {
        return REMEMBER;
    }

    /** Keep the article under a new token and expiry time (0 or less: none). */
    public static ExpiryDecision rewrite(StorageToken token, long expires) {
        return new ExpiryDecision(Kind.REWRITE, Objects.requireNonNull(token, "token"), expires <= 0 ? 0 : expires);
    }

    public Kind kind() {
        return kind;
    }

    /** The new token of a {@link Kind#REWRITE}, else null. */
    public StorageToken token() {
        return token;
    }

    /** The new expiry time of a {@link Kind#REWRITE}, else 0. */
    public long expires() {
        return expires;
    }

    @Override
    public String toString() {
        return kind == Kind.REWRITE ? "rewrite to " + token + " expires=" + expires : kind.name().toLowerCase();
    }
}
