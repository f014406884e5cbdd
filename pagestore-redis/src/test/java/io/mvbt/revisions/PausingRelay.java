// SPDX-License-Identifier: Apache-2.0
package io.mvbt.revisions;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A TCP relay to one Redis server inside a test JVM, which can stop the whole JVM (SIGSTOP) just
 * before it passes on the first bytes that hold a marker: what the JVM sent then reaches Redis
 * only once another process lets it go on (SIGCONT), as if it had stalled between deciding to
 * send and sending.
 */
final class PausingRelay implements AutoCloseable {
    private final ServerSocket server;
    private final int targetPort;
    private volatile byte[] marker;
    private volatile Runnable beforePause;

    PausingRelay(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accepting = new Thread(this::accept, "relay-accept");
        accepting.setDaemon(true);
        accepting.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** The next bytes from a client that hold {@code bytes} stop this JVM, after {@code before}, before they go on. */
    void pauseAt(byte[] bytes, Runnable before) {
        this.beforePause = before;
        this.marker = bytes;
    }

    private void accept() {
        try {
            while (true) {
                Socket client = server.accept();
                Socket redis = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                pump(client.getInputStream(), redis.getOutputStream(), true);
                pump(redis.getInputStream(), client.getOutputStream(), false);
            }
        } catch (IOException e) {
            // Closed.
        }
    }

    private void pump(InputStream in, OutputStream out, boolean fromClient) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[1 << 16];
            try {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    byte[] m = marker;
                    if (fromClient && m != null && contains(buffer, n, m)) {
                        marker = null;
                        beforePause.run();
                        stopThisJvm();
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // A side closed.
            } finally {
                try {
                    out.close();
                } catch (IOException e) {
                    // Gone already.
                }
            }
        }, "relay-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void stopThisJvm() throws IOException {
        try {
            new ProcessBuilder("kill", "-STOP", Long.toString(ProcessHandle.current().pid())).start().waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean contains(byte[] haystack, int length, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
