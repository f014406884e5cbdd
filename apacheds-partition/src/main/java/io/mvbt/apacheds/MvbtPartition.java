// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import io.mvbt.revisions.Codec;
import io.mvbt.revisions.Codecs;
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.UUID;
import org.apache.directory.api.ldap.model.constants.SchemaConstants;
import org.apache.directory.api.ldap.model.csn.CsnFactory;
import org.apache.directory.api.ldap.model.cursor.Cursor;
import org.apache.directory.api.ldap.model.cursor.Tuple;
import org.apache.directory.api.ldap.model.entry.Attribute;
import org.apache.directory.api.ldap.model.entry.DefaultEntry;
import org.apache.directory.api.ldap.model.entry.Entry;
import org.apache.directory.api.ldap.model.entry.Value;
import org.apache.directory.api.ldap.model.exception.LdapException;
import org.apache.directory.api.ldap.model.exception.LdapOtherException;
import org.apache.directory.api.ldap.model.name.Dn;
import org.apache.directory.api.ldap.model.schema.AttributeType;
import org.apache.directory.api.ldap.model.schema.LdapComparator;
import org.apache.directory.api.ldap.model.schema.MatchingRule;
import org.apache.directory.api.ldap.model.schema.SchemaManager;
import org.apache.directory.api.ldap.model.schema.comparators.IntegerComparator;
import org.apache.directory.api.ldap.model.schema.comparators.LongComparator;
import org.apache.directory.server.constants.ApacheSchemaConstants;
import org.apache.directory.server.core.api.DnFactory;
import org.apache.directory.server.core.api.filtering.EntryFilteringCursor;
import org.apache.directory.server.core.api.interceptor.context.AddOperationContext;
import org.apache.directory.server.core.api.interceptor.context.DeleteOperationContext;
import org.apache.directory.server.core.api.interceptor.context.HasEntryOperationContext;
import org.apache.directory.server.core.api.interceptor.context.LookupOperationContext;
import org.apache.directory.server.core.api.interceptor.context.ModifyOperationContext;
import org.apache.directory.server.core.api.interceptor.context.MoveAndRenameOperationContext;
import org.apache.directory.server.core.api.interceptor.context.MoveOperationContext;
import org.apache.directory.server.core.api.interceptor.context.RenameOperationContext;
import org.apache.directory.server.core.api.interceptor.context.SearchOperationContext;
import org.apache.directory.server.core.api.partition.PartitionTxn;
import org.apache.directory.server.core.partition.impl.btree.AbstractBTreePartition;
import org.apache.directory.server.xdbm.Index;
import org.apache.directory.server.xdbm.ParentIdAndRdn;
import org.apache.directory.server.xdbm.search.impl.CursorBuilder;
import org.apache.directory.server.xdbm.search.impl.DefaultOptimizer;
import org.apache.directory.server.xdbm.search.impl.DefaultSearchEngine;
import org.apache.directory.server.xdbm.search.impl.EvaluatorBuilder;
import org.apache.directory.server.xdbm.search.impl.NoOpOptimizer;

/**
 * An ApacheDS partition stored in one mvbt file: the master table and every index are trees of
 * it. A modification is one mvbt commit (the entry and all its index changes, or nothing); a
 * search reads one snapshot from its candidate sets to the last entry it returns, so it needs no
 * lock against writers: with {@link SnapshotOperationManager} it takes none. ApacheDS's own
 * search engine, optimizer and cursors run unchanged over these tables.
 */
public class MvbtPartition extends AbstractBTreePartition {
    /** The file of the store, in the partition's directory. */
    public static final String STORE_FILE = "partition.mvbt";

    private static final Duration WRITER_WAIT = Duration.ofSeconds(30);

    private Store store;

    public MvbtPartition(SchemaManager schemaManager, DnFactory dnFactory) {
        super(schemaManager, dnFactory);
    }

    /** The store, once the partition is initialized. */
    public Store store() {
        return store;
    }

    @Override
    protected void doInit() throws LdapException {
        if (initialized) {
            return;
        }
        EvaluatorBuilder evaluators = new EvaluatorBuilder(this, schemaManager);
        setOptimizer(optimizerEnabled ? new DefaultOptimizer(this) : new NoOpOptimizer());
        setSearchEngine(new DefaultSearchEngine(this, new CursorBuilder(this, evaluators), evaluators,
                getOptimizer()));
        if (getPartitionPath() == null) {
            throw new LdapOtherException("the mvbt partition " + id + " has no partition path");
        }
        File directory = new File(getPartitionPath());
        if (!directory.isDirectory() && !directory.mkdirs()) {
            throw new LdapOtherException("cannot create the directory " + directory + " of partition " + id);
        }
        store = Store.open(directory.toPath().resolve(STORE_FILE), storeOptions());
        master = new MvbtMasterTable(tree("master"), schemaManager, store.maxKeySize());
        try {
            super.doInit();
            disableSharedCaches();
            addContextEntry();
        } catch (LdapException | RuntimeException e) {
            store.close();
            throw e;
        }
        initialized = true;
    }

    /** The options of the partition's store: a redo log, so that a synced write is one log write. */
    protected StoreOptions storeOptions() {
        return StoreOptions.defaults().redoLog(true);
    }

    private Tree tree(String name) {
        try (WriteTxn w = store.beginWrite(WRITER_WAIT)) {
            Tree tree = w.createTreeIfAbsent(name);
            w.commit();
            return tree;
        }
    }

    private boolean hasTree(String name) {
        return store.findTree(name).isPresent();
    }

    @Override
    protected void doRepair() {
        // every commit is whole; there is nothing to repair
    }

    @Override
    protected final Index<?, String> createSystemIndex(String oid, URI path, boolean withReverse) {
        return new MvbtIndex<>(oid, withReverse);
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    protected Index<?, String> convertAndInit(Index<?, String> configured) throws LdapException {
        AttributeType type = schemaManager.lookupAttributeTypeRegistry(configured.getAttributeId());
        String oid = type.getOid();
        boolean system = isSystemIndex(oid);
        // user indexes always keep a reverse table: a REPLACE drops an entry's values by id
        boolean withReverse = system ? configured.hasReverse() : true;
        String name = "idx." + oid;
        boolean building = !system && !hasTree(name + ".fwd") && entries() > 0;
        int maxKey = store.maxKeySize();
        MvbtIndex index = new MvbtIndex<>(configured.getAttributeId(), withReverse);
        if (oid.equals(ApacheSchemaConstants.APACHE_RDN_AT_OID)) {
            Codec<ParentIdAndRdn> whole = EntryCodecs.parentIdAndRdns(schemaManager);
            index.init(type, new RdnForwardTable(tree(name + ".fwd"), whole, maxKey),
                    new MvbtTable<>(tree(name + ".rev"), Codecs.STRING, whole, false, maxKey, String::compareTo,
                            ParentIdAndRdn::compareTo));
            return index;
        }
        Codec keys = keyCodec(type);
        Comparator comparator = comparator(type);
        boolean multiValued = !type.isSingleValued();
        index.init(type, new MvbtTable(tree(name + ".fwd"), keys, Codecs.STRING, true, maxKey, comparator,
                Comparator.<String>naturalOrder()),
                withReverse ? new MvbtTable(tree(name + ".rev"), Codecs.STRING, keys, multiValued, maxKey,
                        Comparator.<String>naturalOrder(), comparator) : null);
        if (building) {
            build(index, type);
        }
        return index;
    }

    private long entries() throws LdapException {
        try (SnapshotTxn read = beginReadTransaction()) {
            return master.count(read);
        }
    }

    private static boolean isSystemIndex(String oid) {
        return oid.startsWith(ApacheSchemaConstants.APACHE_RDN_AT_OID.substring(0, 20))
                || oid.equals(SchemaConstants.OBJECT_CLASS_AT_OID) || oid.equals(SchemaConstants.ENTRY_CSN_AT_OID)
                || oid.equals(SchemaConstants.ADMINISTRATIVE_ROLE_AT_OID);
    }

    /** Keys in the order of the attribute's matching rule: numbers for INTEGER rules, else the normalized string. */
    private Codec<?> keyCodec(AttributeType type) {
        if (type.getOid().equals(ApacheSchemaConstants.APACHE_ALIAS_AT_OID)) {
            return EntryCodecs.dns(schemaManager);
        }
        LdapComparator<?> comparator = comparator(type);
        if (comparator instanceof IntegerComparator || comparator instanceof LongComparator) {
            return EntryCodecs.INTEGERS;
        }
        return Codecs.STRING;
    }

    private static LdapComparator<?> comparator(AttributeType type) {
        MatchingRule rule = type.getEquality() != null ? type.getEquality()
                : type.getOrdering() != null ? type.getOrdering() : type.getSubstring();
        return rule == null ? null : rule.getLdapComparator();
    }

    /** Indexes every entry's values of an attribute whose index was added to a partition with entries. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private void build(MvbtIndex index, AttributeType type) throws LdapException {
        try (WriteTxnAdapter txn = beginWriteTransaction(); BoundTxn.Scope bound = BoundTxn.bind(txn);
                Cursor<Tuple<String, Entry>> entries = master.cursor()) {
            while (entries.next()) {
                Tuple<String, Entry> t = entries.get();
                Attribute attribute = t.getValue().get(type);
                if (attribute == null) {
                    continue;
                }
                for (Value value : attribute) {
                    index.add(txn, value.getNormalized(), t.getKey());
                }
                presenceIdx.add(txn, type.getOid(), t.getKey());
            }
            txn.commit();
        } catch (IOException | org.apache.directory.api.ldap.model.cursor.CursorException e) {
            throw new LdapOtherException("building the index of " + type.getName() + " failed: " + e.getMessage(), e);
        }
    }

    /** Replaces the id-keyed caches readers of every revision would share (see {@link NoCache}). */
    private void disableSharedCaches() throws LdapException {
        piarCache = new NoCache<>();
        aliasCache = new NoCache<>();
        try {
            Field entryDns = AbstractBTreePartition.class.getDeclaredField("entryDnCache");
            entryDns.setAccessible(true);
            entryDns.set(this, new NoCache<>());
        } catch (ReflectiveOperationException e) {
            throw new LdapOtherException("this ApacheDS has no entry DN cache to replace (built for 2.0.0.AM27)", e);
        }
    }

    /** Adds the configured context entry if the partition has none (as ApacheDS's JDBM partition does). */
    private void addContextEntry() throws LdapException {
        if (suffixDn == null || contextEntry == null) {
            return;
        }
        Dn contextDn = contextEntry.getDn().isSchemaAware() ? contextEntry.getDn()
                : new Dn(schemaManager, contextEntry.getDn());
        if (!suffixDn.equals(contextDn)) {
            return;
        }
        try (SnapshotTxn read = beginReadTransaction()) {
            if (getEntryId(read, suffixDn) != null) {
                return;
            }
        }
        Entry entry = contextEntry.isSchemaAware() ? contextEntry : new DefaultEntry(schemaManager, contextEntry);
        if (entry.get(SchemaConstants.ENTRY_CSN_AT) == null) {
            entry.add(SchemaConstants.ENTRY_CSN_AT, new CsnFactory(0).newInstance().toString());
        }
        if (entry.get(SchemaConstants.ENTRY_UUID_AT) == null) {
            entry.add(SchemaConstants.ENTRY_UUID_AT, UUID.randomUUID().toString());
        }
        try (WriteTxnAdapter txn = beginWriteTransaction()) {
            AddOperationContext add = new AddOperationContext(null, entry);
            add.setTransaction(txn);
            add(add);
            txn.commit();
        } catch (IOException e) {
            throw new LdapOtherException(e.getMessage(), e);
        }
    }

    // ---- transactions

    @Override
    public SnapshotTxn beginReadTransaction() {
        return new SnapshotTxn(store.beginRead());
    }

    @Override
    public WriteTxnAdapter beginWriteTransaction() {
        return new WriteTxnAdapter(() -> store.beginWrite(WRITER_WAIT), isSyncOnWrite() ? Durability.SYNC : Durability.NORMAL);
    }

    @Override
    public void sync() throws LdapException {
        if (store != null && !store.isReadOnly()) {
            try {
                store.sync();
            } catch (RuntimeException e) {
                throw new LdapOtherException("syncing partition " + id + " failed: " + e.getMessage(), e);
            }
        }
    }

    @Override
    protected void doDestroy(PartitionTxn txn) throws LdapException {
        try {
            super.doDestroy(txn);
        } finally {
            if (store != null) {
                store.close();
            }
        }
    }

    /** The context CSN is written by searches and lookups of the suffix: in a write transaction of its own. */
    @Override
    public void saveContextCsn(PartitionTxn txn) throws LdapException {
        if (!ctxCsnChanged || txn instanceof WriteTxnAdapter) {
            super.saveContextCsn(txn);
            return;
        }
        try (WriteTxnAdapter write = beginWriteTransaction()) {
            super.saveContextCsn(write);
            write.commit();
        } catch (IOException e) {
            throw new LdapOtherException(e.getMessage(), e);
        }
    }

    // ---- reads on the operation's snapshot, without the server's read lock

    @Override
    public EntryFilteringCursor search(SearchOperationContext context) throws LdapException {
        try (BoundTxn.Scope bound = BoundTxn.bind(context.getTransaction());
                BoundTxn.Scope unlocked = SnapshotReads.enter()) {
            EntryFilteringCursor results = super.search(context);
            return context.getTransaction() instanceof PartitionView
                    ? new SnapshotSearchCursor(results, (PartitionView) context.getTransaction()) : results;
        }
    }

    @Override
    public Entry lookup(LookupOperationContext context) throws LdapException {
        try (BoundTxn.Scope bound = BoundTxn.bind(context.getTransaction());
                BoundTxn.Scope unlocked = SnapshotReads.enter()) {
            return super.lookup(context);
        }
    }

    @Override
    public boolean hasEntry(HasEntryOperationContext context) throws LdapException {
        try (BoundTxn.Scope bound = BoundTxn.bind(context.getTransaction());
                BoundTxn.Scope unlocked = SnapshotReads.enter()) {
            return super.hasEntry(context);
        }
    }

    @Override
    public Entry fetch(PartitionTxn txn, String id) throws LdapException {
        try (BoundTxn.Scope unlocked = SnapshotReads.enter()) {
            return super.fetch(txn, id);
        }
    }

    @Override
    public Entry fetch(PartitionTxn txn, String id, Dn dn) throws LdapException {
        try (BoundTxn.Scope unlocked = SnapshotReads.enter()) {
            return super.fetch(txn, id, dn);
        }
    }

    @Override
    public String getParentId(PartitionTxn txn, String childId) throws LdapException {
        try (BoundTxn.Scope unlocked = SnapshotReads.enter()) {
            return super.getParentId(txn, childId);
        }
    }

    @Override
    public String getSuffixId(PartitionTxn txn) throws LdapException {
        try (BoundTxn.Scope unlocked = SnapshotReads.enter()) {
            return super.getSuffixId(txn);
        }
    }

    @Override
    protected Dn buildEntryDn(PartitionTxn txn, String id) throws LdapException {
        try (BoundTxn.Scope unlocked = SnapshotReads.enter()) {
            return super.buildEntryDn(txn, id);
        }
    }

    // ---- writes: any failure is an LdapException, so that ApacheDS aborts the transaction

    @Override
    public void add(AddOperationContext context) throws LdapException {
        try (BoundTxn.Scope bound = BoundTxn.bind(context.getTransaction())) {
            super.add(context);
        } catch (RuntimeException e) {
            throw failed("add", e);
        }
    }

    @Override
    public Entry delete(DeleteOperationContext context) throws LdapException {
        try (BoundTxn.Scope bound = BoundTxn.bind(context.getTransaction())) {
            return super.delete(context);
        } catch (RuntimeException e) {
            throw failed("delete", e);
        }
    }

    @Override
    public void modify(ModifyOperationContext context) throws LdapException {
        try (BoundTxn.Scope bound = BoundTxn.bind(context.getTransaction())) {
            super.modify(context);
        } catch (RuntimeException e) {
            throw failed("modify", e);
        }
    }

    @Override
    public void rename(RenameOperationContext context) throws LdapException {
        try (BoundTxn.Scope bound = BoundTxn.bind(context.getTransaction())) {
            super.rename(context);
        } catch (RuntimeException e) {
            throw failed("rename", e);
        }
    }

    @Override
    public void move(MoveOperationContext context) throws LdapException {
        try (BoundTxn.Scope bound = BoundTxn.bind(context.getTransaction())) {
            super.move(context);
        } catch (RuntimeException e) {
            throw failed("move", e);
        }
    }

    @Override
    public void moveAndRename(MoveAndRenameOperationContext context) throws LdapException {
        try (BoundTxn.Scope bound = BoundTxn.bind(context.getTransaction())) {
            super.moveAndRename(context);
        } catch (RuntimeException e) {
            throw failed("moveAndRename", e);
        }
    }

    private LdapException failed(String operation, RuntimeException e) {
        return new LdapOtherException("the " + operation + " in mvbt partition " + id + " failed: " + e.getMessage(), e);
    }

    /** For tests: the path of the store of a partition in {@code directory}. */
    static Path storePath(Path directory) {
        return directory.resolve(STORE_FILE);
    }
}
