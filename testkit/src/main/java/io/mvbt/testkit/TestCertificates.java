// SPDX-License-Identifier: Apache-2.0
package io.mvbt.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * A certificate authority and a server certificate made when a test runs (with the JDK's
 * keytool), so that no private key is checked in: PEM files for redis-server, an SSLContext that
 * trusts the authority for clients.
 */
public final class TestCertificates {
    private static final String PASSWORD = "mvbt-test";

    private final Path caCertificate;
    private final Path serverCertificate;
    private final Path serverKey;
    /** A client's key and certificate signed by the authority (PKCS12, with the authority's certificate). */
    private final Path clientKeys;

    private TestCertificates(Path caCertificate, Path serverCertificate, Path serverKey, Path clientKeys) {
        this.caCertificate = caCertificate;
        this.serverCertificate = serverCertificate;
        this.serverKey = serverKey;
        this.clientKeys = clientKeys;
    }

    /** A new authority in {@code dir} and a server certificate it signed for {@code names} (e.g. "dns:localhost,ip:127.0.0.1"). */
    public static TestCertificates create(Path dir, String names) throws IOException, InterruptedException,
            GeneralSecurityException {
        Files.createDirectories(dir);
        Path ca = dir.resolve("ca.p12");
        Path server = dir.resolve("server.p12");
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=mvbt test CA",
                "-ext", "bc:c", "-validity", "2", "-keystore", ca.toString());
        keytool("-genkeypair", "-alias", "server", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=redis",
                "-validity", "2", "-keystore", server.toString());
        Path request = dir.resolve("server.csr");
        keytool("-certreq", "-alias", "server", "-keystore", server.toString(), "-file", request.toString());
        Path serverCertificate = dir.resolve("server.crt");
        keytool("-gencert", "-alias", "ca", "-keystore", ca.toString(), "-infile", request.toString(),
                "-outfile", serverCertificate.toString(), "-rfc", "-validity", "2", "-ext", "san=" + names);
        Path caCertificate = dir.resolve("ca.crt");
        keytool("-exportcert", "-alias", "ca", "-keystore", ca.toString(), "-rfc", "-file", caCertificate.toString());
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(server)) {
            keys.load(in, PASSWORD.toCharArray());
        }
        byte[] pkcs8 = keys.getKey("server", PASSWORD.toCharArray()).getEncoded();
        Path serverKey = dir.resolve("server.key");
        Files.writeString(serverKey, "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(pkcs8)
                + "\n-----END PRIVATE KEY-----\n");
        Path client = dir.resolve("client.p12");
        keytool("-genkeypair", "-alias", "client", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=mvbt client",
                "-validity", "2", "-keystore", client.toString());
        Path clientRequest = dir.resolve("client.csr");
        keytool("-certreq", "-alias", "client", "-keystore", client.toString(), "-file", clientRequest.toString());
        Path clientCertificate = dir.resolve("client.crt");
        keytool("-gencert", "-alias", "ca", "-keystore", ca.toString(), "-infile", clientRequest.toString(),
                "-outfile", clientCertificate.toString(), "-rfc", "-validity", "2", "-ext", "eku=clientAuth");
        keytool("-importcert", "-alias", "ca", "-file", caCertificate.toString(), "-keystore", client.toString());
        keytool("-importcert", "-alias", "client", "-file", clientCertificate.toString(), "-keystore", client.toString());
        return new TestCertificates(caCertificate, serverCertificate, serverKey, client);
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        command.addAll(List.of("-storepass", PASSWORD, "-keypass", PASSWORD, "-storetype", "PKCS12", "-noprompt"));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("keytool " + args[0] + " failed: " + out);
        }
    }

    /** redis-server arguments serving these certificates, clients not asked for theirs. */
    public List<String> serverArgs() {
        return List.of("--tls-cert-file", serverCertificate.toString(), "--tls-key-file", serverKey.toString(),
                "--tls-ca-cert-file", caCertificate.toString(), "--tls-auth-clients", "no");
    }

    /** redis-cli arguments for a server with these certificates. */
    public List<String> cliArgs() {
        return List.of("--tls", "--cacert", caCertificate.toString());
    }

    /** redis-server arguments serving these certificates and requiring a client certificate the authority signed. */
    public List<String> serverArgsRequiringClients() {
        List<String> args = new ArrayList<>(serverArgs());
        args.set(args.indexOf("--tls-auth-clients") + 1, "yes");
        return args;
    }

    /** A client's context that trusts this authority and shows the certificate it signed for the client. */
    public SSLContext clientContext() throws IOException, GeneralSecurityException {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(clientKeys)) {
            keys.load(in, PASSWORD.toCharArray());
        }
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keys, PASSWORD.toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keyManagers.getKeyManagers(), trustManagers(), null);
        return context;
    }

    /** A client's context that trusts this authority (and nothing else). */
    public SSLContext trustingContext() throws IOException, GeneralSecurityException {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trustManagers(), null);
        return context;
    }

    private TrustManager[] trustManagers() throws IOException, GeneralSecurityException {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(caCertificate)) {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        return factory.getTrustManagers();
    }
}
