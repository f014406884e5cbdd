// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import java.io.File;
import java.lang.reflect.Field;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.directory.api.ldap.model.entry.DefaultEntry;
import org.apache.directory.api.ldap.model.name.Dn;
import org.apache.directory.server.core.DefaultDirectoryService;
import org.apache.directory.server.core.DefaultOperationManager;
import org.apache.directory.server.core.api.DirectoryService;
import org.apache.directory.server.core.api.partition.Partition;
import org.apache.directory.server.core.factory.DefaultDirectoryServiceFactory;
import org.apache.directory.server.core.factory.DirectoryServiceFactory;
import org.apache.directory.server.core.factory.JdbmPartitionFactory;
import org.apache.directory.server.core.factory.MavibotPartitionFactory;
import org.apache.directory.server.core.factory.PartitionFactory;
import org.apache.directory.server.ldap.LdapServer;
import org.apache.directory.server.protocol.shared.transport.TcpTransport;
import org.apache.directory.server.protocol.shared.transport.Transport;
import org.apache.mina.filter.executor.ExecutorFilter;
import org.apache.mina.filter.executor.UnorderedThreadPoolExecutor;

/**
 * An ApacheDS server on a loopback port with a partition dc=example,dc=com of one kind, built
 * the way ApacheDS's test factories build theirs, but on a directory that survives a restart.
 */
final class DirectoryServer implements AutoCloseable {
    static final String BASE = "dc=example,dc=com";
    static final String PEOPLE = "ou=people," + BASE;

    /**
     * The partition kinds compared: mvbt with {@link SnapshotOperationManager} (no read lock for
     * its searches); mvbt dropped into a stock server (a JDBM system partition, ApacheDS's own
     * operation manager and its lock), as a user configuring a partition would; the stock ones as
     * shipped (with the server-wide lock) or without it.
     */
    enum Kind {
        MVBT, MVBT_STOCK, JDBM, JDBM_UNLOCKED, MAVIBOT, MAVIBOT_UNLOCKED;

        boolean stockLock() {
            return this == MVBT_STOCK || this == JDBM || this == MAVIBOT;
        }

        boolean mvbt() {
            return this == MVBT || this == MVBT_STOCK;
        }
    }

    final Kind kind;
    final DirectoryService service;
    final LdapServer ldap;

    private DirectoryServer(Kind kind, DirectoryService service, LdapServer ldap) {
        this.kind = kind;
        this.service = service;
        this.ldap = ldap;
    }

    int port() {
        return ldap.getPort();
    }

    /** A server on {@code directory}; {@code fresh}: emptied first, else on the partition's data as left (mvbt kinds). */
    static DirectoryServer start(Kind kind, Path directory, boolean fresh) throws Exception {
        return start(kind, directory, fresh, "uid", "ou", "cn");
    }

    /** A server whose partition indexes {@code indexes}. */
    static DirectoryServer start(Kind kind, Path directory, boolean fresh, String... indexes) throws Exception {
        DirectoryServiceFactory factory;
        String name = "mvbt-" + kind.name().toLowerCase();
        if (kind == Kind.MVBT) {
            factory = new MvbtDirectoryServiceFactory(directory, fresh);
            factory.init(name);
        } else {
            DefaultDirectoryService service = new DefaultDirectoryService();
            service.setShutdownHookEnabled(false);
            if (!kind.stockLock()) {
                withoutReadLock(service);
            }
            PartitionFactory partitions = kind.name().startsWith("MAVIBOT") ? new MavibotPartitionFactory()
                    : new JdbmPartitionFactory();
            factory = new DefaultDirectoryServiceFactory(service, partitions);
            String before = System.getProperty("workingDirectory");
            // ApacheDS's factory empties its instance directory: a stock server keeps the mvbt data beside it
            System.setProperty("workingDirectory", kind == Kind.MVBT_STOCK ? directory.resolve("instance").toString()
                    : directory.toString());
            try {
                factory.init(name);
            } finally {
                if (before == null) {
                    System.clearProperty("workingDirectory");
                } else {
                    System.setProperty("workingDirectory", before);
                }
            }
        }
        DirectoryService service = factory.getDirectoryService();
        service.getChangeLog().setEnabled(false);
        PartitionFactory partitions = kind.mvbt() ? new MvbtPartitionFactory() : factory.getPartitionFactory();
        File data = new File(service.getInstanceLayout().getPartitionsDirectory(), "example");
        if (kind == Kind.MVBT_STOCK) {
            data = directory.resolve("example").toFile();
            if (fresh) {
                MvbtDirectoryServiceFactory.deleteTree(data.toPath());
            }
        }
        Partition example = partitions.createPartition(service.getSchemaManager(), service.getDnFactory(), "example",
                BASE, 1000, data);
        for (String attribute : indexes) {
            partitions.addIndex(example, attribute, 1000);
        }
        service.addPartition(example);
        if (!service.getAdminSession().exists(new Dn(service.getSchemaManager(), BASE))) {
            service.getAdminSession().add(new DefaultEntry(service.getSchemaManager(), BASE,
                    "objectClass: top", "objectClass: domain", "dc: example"));
            service.getAdminSession().add(new DefaultEntry(service.getSchemaManager(), PEOPLE,
                    "objectClass: organizationalUnit", "ou: people"));
        }
        LdapServer ldap = new LdapServer();
        ldap.setDirectoryService(service);
        ldap.setTransports(new TcpTransport("localhost", freePort()));
        ldap.start();
        return new DirectoryServer(kind, service, ldap);
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** What ApacheDS's JDBM and Mavibot partitions do without the lock: the stock manager, its read side a no-op. */
    private static void withoutReadLock(DefaultDirectoryService service) throws Exception {
        DefaultOperationManager unlocked = new DefaultOperationManager(service) {
            private final ReadWriteLock lock = new ReadWriteLock() {
                private final Lock write = new ReentrantLock();
                private final Lock read = new ReentrantLock() {
                    private static final long serialVersionUID = 1L;

                    @Override
                    public void lock() {
                    }

                    @Override
                    public void unlock() {
                    }
                };

                @Override
                public Lock readLock() {
                    return read;
                }

                @Override
                public Lock writeLock() {
                    return write;
                }
            };

            @Override
            public ReadWriteLock getRWLock() {
                return lock;
            }

            @Override
            public void lockRead() {
            }

            @Override
            public void unlockRead() {
            }
        };
        Field field = DefaultDirectoryService.class.getDeclaredField("operationManager");
        field.setAccessible(true);
        field.set(service, unlocked);
    }

    /**
     * Stops the server, giving up after a minute: a peer whose store broke can leave a worker
     * waiting for ever on the store's own lock while it holds ApacheDS's write lock (Mavibot's
     * record manager did in a CI run), and shutdown waits for that lock. The stuck threads are
     * left behind, and the failure says so.
     */
    @Override
    public void close() throws Exception {
        AtomicReference<Exception> failed = new AtomicReference<>();
        Thread stopping = new Thread(() -> {
            try {
                try {
                    quiesceWorkers();
                    ldap.stop();
                } finally {
                    service.shutdown();
                }
            } catch (Exception e) {
                failed.set(e);
            }
        }, "stop " + kind);
        stopping.setDaemon(true);
        stopping.start();
        stopping.join(60_000);
        if (stopping.isAlive()) {
            throw new IllegalStateException(kind + " did not shut down within 60 s: a worker holds its lock");
        }
        if (failed.get() != null) {
            throw failed.get();
        }
    }

    /**
     * Stops the LDAP server's worker pools before {@link LdapServer#stop} does. MINA's
     * {@code UnorderedThreadPoolExecutor.shutdownNow} puts back every exit signal it polls until a
     * worker takes it, so one signal left over (a worker that ended idle as the pool shut down)
     * made it spin for ever: a verify run hung there. Shut down first, wait for the workers, then
     * drop what no worker is left to take.
     */
    private void quiesceWorkers() throws InterruptedException {
        for (Transport transport : ldap.getTransports()) {
            if (transport.getAcceptor() != null
                    && transport.getAcceptor().getFilterChain().get("executor") instanceof ExecutorFilter filter
                    && filter.getExecutor() instanceof UnorderedThreadPoolExecutor pool) {
                pool.shutdown();
                pool.awaitTermination(10, TimeUnit.SECONDS);
                pool.getQueue().clear();
            }
        }
    }
}
