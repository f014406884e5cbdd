// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.directory.api.ldap.model.constants.SchemaConstants;
import org.apache.directory.api.ldap.model.schema.LdapComparator;
import org.apache.directory.api.ldap.model.schema.SchemaManager;
import org.apache.directory.api.ldap.model.schema.comparators.NormalizingComparator;
import org.apache.directory.api.ldap.model.schema.registries.SchemaLoader;
import org.apache.directory.api.ldap.schema.extractor.impl.DefaultSchemaLdifExtractor;
import org.apache.directory.api.ldap.schema.loader.LdifSchemaLoader;
import org.apache.directory.api.ldap.schema.manager.impl.DefaultSchemaManager;
import org.apache.directory.server.constants.ServerDNConstants;
import org.apache.directory.server.core.DefaultDirectoryService;
import org.apache.directory.server.core.api.DirectoryService;
import org.apache.directory.server.core.api.InstanceLayout;
import org.apache.directory.server.core.api.schema.SchemaPartition;
import org.apache.directory.server.core.factory.DirectoryServiceFactory;
import org.apache.directory.server.core.factory.PartitionFactory;
import org.apache.directory.server.core.partition.impl.btree.AbstractBTreePartition;
import org.apache.directory.server.core.partition.ldif.LdifPartition;

/**
 * A directory service whose system partition and default partitions are {@link MvbtPartition}s
 * and whose reads of them take no server-wide lock ({@link SnapshotOperationManager}). Name it in
 * {@code @CreateDS(factory = MvbtDirectoryServiceFactory.class)}; there it starts empty, as
 * ApacheDS's own test factory does. {@link #MvbtDirectoryServiceFactory(Path, boolean)} opens an
 * instance directory and keeps what it holds, for a server that restarts on its data.
 */
public final class MvbtDirectoryServiceFactory implements DirectoryServiceFactory {
    private final DefaultDirectoryService service;
    private final PartitionFactory partitions = new MvbtPartitionFactory();
    private final Path instance;
    private final boolean fresh;

    /** A service in {@code workingDirectory} (a system property) or the temporary directory, emptied first. */
    public MvbtDirectoryServiceFactory() throws Exception {
        this(null, true);
    }

    /** A service in {@code instance} (null: as the no-argument constructor), emptied first if {@code fresh}. */
    public MvbtDirectoryServiceFactory(Path instance, boolean fresh) throws Exception {
        this.service = new DefaultDirectoryService();
        this.service.setShutdownHookEnabled(false);
        SnapshotOperationManager.install(service);
        this.instance = instance;
        this.fresh = fresh;
    }

    @Override
    public void init(String name) throws Exception {
        if (service.isStarted()) {
            return;
        }
        service.setInstanceId(name);
        Path directory = instance != null ? instance
                : Path.of(System.getProperty("workingDirectory",
                        System.getProperty("java.io.tmpdir") + File.separator + "server-work-" + name));
        if (fresh) {
            deleteTree(directory);
        }
        service.setInstanceLayout(new InstanceLayout(directory.toFile()));
        initSchema();
        File partitionsDirectory = service.getInstanceLayout().getPartitionsDirectory();
        AbstractBTreePartition system = (AbstractBTreePartition) partitions.createPartition(service.getSchemaManager(),
                service.getDnFactory(), "system", ServerDNConstants.SYSTEM_DN, 500,
                new File(partitionsDirectory, "system"));
        system.setSchemaManager(service.getSchemaManager());
        partitions.addIndex(system, SchemaConstants.OBJECT_CLASS_AT, 100);
        service.setSystemPartition(system);
        service.startup();
    }

    private void initSchema() throws Exception {
        File partitionsDirectory = service.getInstanceLayout().getPartitionsDirectory();
        File schemaDirectory = new File(partitionsDirectory, "schema");
        if (!schemaDirectory.exists()) {
            new DefaultSchemaLdifExtractor(partitionsDirectory).extractOrCopy();
        }
        SchemaLoader loader = new LdifSchemaLoader(schemaDirectory);
        SchemaManager schema = new DefaultSchemaManager(loader);
        schema.loadAllEnabled();
        // the server normalizes values before it compares them
        for (LdapComparator<?> comparator : schema.getComparatorRegistry()) {
            if (comparator instanceof NormalizingComparator) {
                ((NormalizingComparator) comparator).setOnServer();
            }
        }
        List<Throwable> errors = schema.getErrors();
        if (!errors.isEmpty()) {
            throw new IllegalStateException("the schema does not load: " + errors);
        }
        service.setSchemaManager(schema);
        LdifPartition ldif = new LdifPartition(schema, service.getDnFactory());
        ldif.setPartitionPath(schemaDirectory.toURI());
        SchemaPartition schemaPartition = new SchemaPartition(schema);
        schemaPartition.setWrappedPartition(ldif);
        service.setSchemaPartition(schemaPartition);
    }

    /** Deletes {@code directory} and everything under it, if it is there (the tests' servers use it too). */
    static void deleteTree(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    @Override
    public DirectoryService getDirectoryService() {
        return service;
    }

    @Override
    public PartitionFactory getPartitionFactory() {
        return partitions;
    }
}
