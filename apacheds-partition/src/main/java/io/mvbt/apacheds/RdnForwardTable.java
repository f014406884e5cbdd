// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import io.mvbt.revisions.Codec;
import io.mvbt.revisions.Codecs;
import io.mvbt.revisions.Pair;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.Tree;
import java.io.ByteArrayOutputStream;
import org.agrona.DirectBuffer;
import org.apache.directory.api.ldap.model.name.Rdn;
import org.apache.directory.server.xdbm.ParentIdAndRdn;

/**
 * The forward table of the RDN index: (parent id, RDNs) to entry id. The key is ordered as
 * ApacheDS orders {@link ParentIdAndRdn}s (parent first, so an entry's children are one range,
 * and a key with no RDNs sorts before every child of its parent); the value keeps the id and the
 * whole {@code ParentIdAndRdn} with its child and descendant counts, which the key cannot hold
 * since they change while the key does not.
 */
final class RdnForwardTable extends MvbtTable<ParentIdAndRdn, String> {
    private final Codec<Pair<String, ParentIdAndRdn>> stored;

    RdnForwardTable(Store store, Tree tree, Codec<ParentIdAndRdn> whole) {
        super(store, tree, SORT_KEYS, Codecs.STRING, false, ParentIdAndRdn::compareTo, String::compareTo);
        this.stored = Codecs.pair(Codecs.STRING, whole);
    }

    @Override
    byte[] stored(ParentIdAndRdn key, String id) {
        return stored.encode(new Pair<>(id, key));
    }

    @Override
    String storedValue(DirectBuffer value, int length) {
        return stored.decode(value, 0, length).first();
    }

    @Override
    ParentIdAndRdn storedKey(DirectBuffer key, int keyLength, DirectBuffer value, int valueLength) {
        return stored.decode(value, 0, valueLength).second();
    }

    /** Parent id, then the number of RDNs and each RDN's normalized name, each string escaped. */
    private static final Codec<ParentIdAndRdn> SORT_KEYS = new Codec<>() {
        @Override
        public byte[] encode(ParentIdAndRdn p) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(64);
            escaped(out, p.getParentId());
            Rdn[] rdns = p.getRdns();
            if (rdns != null) {
                out.write(rdns.length);
                for (Rdn rdn : rdns) {
                    escaped(out, rdn.getNormName());
                }
            }
            return out.toByteArray();
        }

        @Override
        public ParentIdAndRdn decode(DirectBuffer buffer, int offset, int length) {
            throw new UnsupportedOperationException("an RDN index key is read from its value");
        }
    };

    /** A string escaped as the first part of {@link Codecs#pair} (order kept, no encoding a prefix of another's). */
    private static final Codec<Pair<String, byte[]>> ESCAPED = Codecs.pair(Codecs.STRING, Codecs.BYTES);

    private static void escaped(ByteArrayOutputStream out, String s) {
        out.writeBytes(ESCAPED.encode(new Pair<>(s, new byte[0])));
    }
}
