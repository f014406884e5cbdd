// SPDX-License-Identifier: Apache-2.0
package io.mvbt.pagestore.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.security.AlgorithmConstraints;
import java.security.AlgorithmParameters;
import java.security.CryptoPrimitive;
import java.security.Key;
import java.util.List;
import java.util.Set;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;

import org.junit.jupiter.api.Test;

class RedisEndpointTest {
    @Test
    void readsTheUriFormsAndNeverShowsThePassword() {
        RedisEndpoint acl = RedisEndpoint.parse("rediss://orders-writer:s3cr%40t%3A1@redis.example.com:6380");
        assertEquals("s3cr@t:1", acl.password(), "percent-decoded");
        assertEquals("p@ss:w/rd+1", RedisEndpoint.parse("redis://u:p@ss:w/rd+1@h:1").password(),
                "raw reserved characters, up to the last @");
        assertTrue(acl.isTls());
        assertFalse(acl.isCluster());
        assertEquals("orders-writer", acl.user());
        assertEquals("rediss://orders-writer:***@redis.example.com:6380", acl.toString());

        RedisEndpoint legacy = RedisEndpoint.parse("redis://:legacy-secret@10.0.0.1:6379/0");
        assertNull(legacy.user());
        assertFalse(legacy.isTls());
        assertEquals("redis://:***@10.0.0.1:6379", legacy.toString());
        assertEquals("10.0.0.1:6379", RedisEndpoint.parse("redis://10.0.0.1:6379").toString());

        RedisEndpoint cluster = RedisEndpoint.parse("cluster:rediss://u:p@10.0.0.1:7000,10.0.0.2:7000");
        assertTrue(cluster.isCluster());
        assertTrue(cluster.isTls());
        assertEquals("cluster:rediss://u:***@10.0.0.1:7000,10.0.0.2:7000", cluster.toString());
        assertEquals("cluster:10.0.0.1:7000,10.0.0.2:7000", RedisEndpoint.parse("cluster:10.0.0.1:7000,10.0.0.2:7000")
                .toString());

        String secret = "do-not-print-me";
        assertFalse(RedisEndpoint.single("h", 1).withUser("u", secret).withTls().toString().contains(secret));
        assertFalse(RedisEndpoint.single("h", 1).withPassword(secret).toString().contains(secret));
    }

    @Test
    void refusesWhatItCannotUseWithoutEchoingTheSecret() {
        IllegalArgumentException scheme = assertThrows(IllegalArgumentException.class,
                () -> RedisEndpoint.parse("http://u:hidden-pw@h:1"));
        assertFalse(scheme.getMessage().contains("hidden-pw"), scheme.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RedisEndpoint.parse("redis://u@h:1"), "a user needs a password");
        IllegalArgumentException database = assertThrows(IllegalArgumentException.class,
                () -> RedisEndpoint.parse("redis://u:hidden-pw@h:1/3"));
        assertFalse(database.getMessage().contains("hidden-pw"), database.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RedisEndpoint.parse("redis://h:1,h:2"), "a cluster says so");
        assertThrows(IllegalArgumentException.class, () -> RedisEndpoint.parse("redis://h"));
        IllegalArgumentException bare = assertThrows(IllegalArgumentException.class,
                () -> RedisEndpoint.parse("orders:hidden-pw@10.0.0.1:6379"), "credentials without a scheme");
        assertFalse(bare.getMessage().contains("hidden-pw"), bare.getMessage());
        IllegalArgumentException escape = assertThrows(IllegalArgumentException.class,
                () -> RedisEndpoint.parse("redis://u:hidden%zzpw@h:1"));
        assertFalse(escape.getMessage().contains("hidden"), escape.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RedisEndpoint.parse("redis://u:***@h:1"),
                "the mask toString() prints is not a password");
    }

    /** The caller's TLS parameters reach the connection whole: every property with a getter and a setter. */
    @Test
    void tlsParametersAreCopiedWhole() throws Exception {
        SSLParameters p = new SSLParameters(new String[] {"TLS_AES_256_GCM_SHA384"}, new String[] {"TLSv1.3"});
        p.setNeedClientAuth(true);
        p.setEndpointIdentificationAlgorithm("LDAPS");
        p.setServerNames(List.of(new SNIHostName("redis.example.com")));
        p.setSNIMatchers(List.of(SNIHostName.createSNIMatcher("redis\\..*")));
        p.setApplicationProtocols(new String[] {"h2"});
        p.setUseCipherSuitesOrder(true);
        p.setEnableRetransmissions(false);
        p.setMaximumPacketSize(1234);
        p.setAlgorithmConstraints(new AlgorithmConstraints() {
            @Override
            public boolean permits(Set<CryptoPrimitive> primitives, String algorithm, AlgorithmParameters parameters) {
                return true;
            }

            @Override
            public boolean permits(Set<CryptoPrimitive> primitives, Key key) {
                return true;
            }

            @Override
            public boolean permits(Set<CryptoPrimitive> primitives, String algorithm, Key key,
                    AlgorithmParameters parameters) {
                return true;
            }
        });
        // Properties of later JDKs (signature schemes, named groups), where this one has them.
        for (String setter : List.of("setSignatureSchemes", "setNamedGroups")) {
            try {
                SSLParameters.class.getMethod(setter, String[].class).invoke(p, (Object) new String[] {"x25519"});
            } catch (NoSuchMethodException e) {
                // An older JDK.
            }
        }
        SSLParameters copy = RedisEndpoint.copy(p);
        int compared = 0;
        for (Method get : SSLParameters.class.getMethods()) {
            if (get.getParameterCount() != 0 || !get.getName().startsWith("get") || get.getDeclaringClass() == Object.class) {
                continue;
            }
            Object expected = get.invoke(p);
            Object actual = get.invoke(copy);
            assertTrue(java.util.Objects.deepEquals(expected, actual) || expected instanceof java.util.Collection<?> c
                    && actual instanceof java.util.Collection<?> d && List.copyOf(c).equals(List.copyOf(d)),
                    get.getName() + ": " + expected + " became " + actual);
            compared++;
        }
        assertTrue(compared >= 12, compared + " properties compared");
    }
}
