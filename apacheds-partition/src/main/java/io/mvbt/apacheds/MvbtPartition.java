// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import io.mvbt.ReadersFullException;
import io.mvbt.revisions.Codec;
import io.mvbt.revisions.Codecs;
import io.mvbt.revisions.Durability;
import io.mvbt.revisions.Store;
import io.mvbt.revisions.StoreOptions;
import io.mvbt.revisions.Tree;
import io.mvbt.revisions.WriteTxn;
import com.github.benmanes.caffeine.cache.Cache;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.URI;
import java.time.Duration;
import java.util.Comparator;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;
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
import org.apache.directory.server.core.api.interceptor.context.OperationContext;
import org.apache.directory.server.core.api.interceptor.context.MoveAndRenameOperationContext;
import org.apache.directory.server.core.api.interceptor.context.MoveOperationContext;
import org.apache.directory.server.core.api.interceptor.context.RenameOperationContext;
import org.apache.directory.server.core.api.interceptor.context.SearchOperationContext;
import org.apache.directory.server.core.api.partition.PartitionTxn;
import org.apache.directory.server.core.api.partition.Subordinates;
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

    /** Entry DNs read on snapshots, with the version of the RDN index they were built from. */
    private static final int MAX_CACHED_DNS = 100_000;

    private final ConcurrentHashMap<String, VersionedDn> entryDns = new ConcurrentHashMap<>();
    private volatile boolean managerNoted;
    private final java.util.Set<String> configuredIndexes = new java.util.HashSet<>();
    private Store store;
    private Tree rdnReverse;

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
        master = new MvbtMasterTable(store, tree("master"), schemaManager);
        try {
            super.doInit();
            dropUnconfiguredIndexes();
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
        String name = indexTreePrefix(oid);
        configuredIndexes.add(name);
        MvbtIndex index = new MvbtIndex<>(configured.getAttributeId(), withReverse);
        if (oid.equals(ApacheSchemaConstants.APACHE_RDN_AT_OID)) {
            Codec<ParentIdAndRdn> whole = EntryCodecs.parentIdAndRdns(schemaManager);
            rdnReverse = tree(name + ".rev");
            index.init(type, new RdnForwardTable(store, tree(name + ".fwd"), whole),
                    new MvbtTable<>(store, rdnReverse, Codecs.STRING, whole, false, String::compareTo,
                            ParentIdAndRdn::compareTo), UnaryOperator.identity());
            return index;
        }
        Codec keys = keyCodec(type);
        Comparator comparator = comparator(type);
        boolean multiValued = !type.isSingleValued();
        boolean built = hasTree(name + ".fwd");
        index.init(type, new MvbtTable(store, store.tree(name + ".fwd"), keys, Codecs.STRING, true, comparator,
                Comparator.<String>naturalOrder()),
                withReverse ? new MvbtTable(store, store.tree(name + ".rev"), Codecs.STRING, keys, multiValued,
                        Comparator.<String>naturalOrder(), comparator) : null,
                // ApacheDS orders by a filter's value as written only in user indexes; system ones are probed with stored forms
                system ? UnaryOperator.identity() : IndexedForm.of(type));
        if (!built) {
            build(index, type, name, withReverse);
        }
        return index;
    }

    /** Trees of index {@code oid} are named by this prefix, then ".fwd" and ".rev". */
    private static String indexTreePrefix(String oid) {
        return "idx." + oid;
    }

    /**
     * Creates an index's trees and indexes every entry's values of the attribute, in one commit:
     * an index whose trees exist is whole. (A partition with no entries yet builds it empty.)
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private void build(MvbtIndex index, AttributeType type, String name, boolean withReverse) throws LdapException {
        try (WriteTxnAdapter txn = new WriteTxnAdapter(store, () -> store.beginWrite(WRITER_WAIT), Durability.SYNC);
                BoundTxn.Scope bound = BoundTxn.bind(txn)) {
            txn.txn().createTree(name + ".fwd");
            if (withReverse) {
                txn.txn().createTree(name + ".rev");
            }
            try (Cursor<Tuple<String, Entry>> entries = ((MvbtMasterTable) master).cursor(txn)) {
                while (entries.next()) {
                    Tuple<String, Entry> t = entries.get();
                    Attribute attribute = t.getValue().get(type);
                    if (attribute == null) {
                        continue;
                    }
                    for (Value value : attribute) {
                        index.add(txn, value.getNormalized(), t.getKey());
                    }
                    if (presenceIdx != null) {
                        presenceIdx.add(txn, type.getOid(), t.getKey());
                    }
                }
            }
            txn.commit();
        } catch (IOException | org.apache.directory.api.ldap.model.cursor.CursorException e) {
            throw new LdapOtherException("building the index of " + type.getName() + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Drops the trees of indexes no longer configured: they were not kept up to date meanwhile,
     * and an index configured again is built afresh.
     */
    private void dropUnconfiguredIndexes() {
        try (WriteTxn w = store.beginWrite(WRITER_WAIT)) {
            boolean dropped = false;
            for (String tree : w.treeNames()) {
                if (tree.startsWith("idx.") && !configuredIndexes.contains(tree.substring(0, tree.lastIndexOf('.')))) {
                    dropped |= w.dropTree(store.tree(tree));
                }
            }
            if (dropped) {
                w.commit();
            }
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

    /**
     * A snapshot of the newest revision. When every reader slot is taken, the snapshots of
     * transactions ApacheDS dropped without closing (see {@link SnapshotTxn}) are collected
     * first, and the partition tries once more.
     */
    @Override
    public SnapshotTxn beginReadTransaction() {
        try {
            return new SnapshotTxn(store, store.beginRead());
        } catch (ReadersFullException e) {
            System.gc();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
            while (true) {
                try {
                    return new SnapshotTxn(store, store.beginRead());
                } catch (ReadersFullException again) {
                    if (System.nanoTime() > deadline) {
                        throw again;
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                }
            }
        }
    }

    @Override
    public WriteTxnAdapter beginWriteTransaction() {
        WriteTxnAdapter working = WriteOperation.working(store);
        if (working != null) {
            return new WriteTxnAdapter(working);
        }
        return WriteOperation.begun(new WriteTxnAdapter(store, () -> store.beginWrite(WRITER_WAIT),
                isSyncOnWrite() ? Durability.SYNC : Durability.NORMAL));
    }

    /**
     * Saves the context CSN (in a commit of its own) and makes every commit durable. ApacheDS
     * also calls it at the end of its delete, rename and move, inside the operation's transaction,
     * which holds the store's writer: there the CSN is saved in that transaction, whose commit
     * (synced when the partition syncs on write, as it must be for ApacheDS to call this) makes it
     * durable. A transaction of its own would wait for the writer this thread holds; under
     * {@link SnapshotOperationManager} it joined the operation's, under ApacheDS's own manager
     * every delete, rename and move waited 30 s and failed.
     */
    @Override
    public void sync() throws LdapException {
        WriteTxnAdapter operation = BoundTxn.working(store);
        if (operation != null) {
            super.saveContextCsn(operation);
            return;
        }
        if (store != null && !store.isReadOnly()) {
            if (ctxCsnChanged) {
                try (WriteTxnAdapter write = beginWriteTransaction()) {
                    super.saveContextCsn(write);
                    write.commit();
                } catch (IOException e) {
                    throw new LdapOtherException(e.getMessage(), e);
                }
            }
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

    /**
     * ApacheDS writes the context CSN into the suffix entry from searches and lookups of the
     * suffix, in their read transactions. Here it is written only in write transactions and by
     * {@link #sync()}: a search that waited for the writer could hold ApacheDS's CSN semaphore
     * that writer needs, and could persist the CSN of a write that then aborts.
     */
    @Override
    public void saveContextCsn(PartitionTxn txn) throws LdapException {
        if (txn instanceof WriteTxnAdapter && ((WriteTxnAdapter) txn).store() == store) {
            super.saveContextCsn(txn);
        }
    }

    /** No alias cache: ApacheDS reads the alias index instead, on the search's snapshot. */
    @Override
    public Cache<String, Dn> getAliasCache() {
        return null;
    }

    // ---- reads on the operation's snapshot, without the server's read lock

    /**
     * Says once, at the first operation that reaches the partition (a server's first is its own
     * at startup), when ApacheDS's own operation manager runs it: it works there, with the
     * server-wide lock around every search, and what {@link SnapshotOperationManager} adds is
     * named, with how to have it.
     */
    private void noteOperationManager(OperationContext context) {
        if (managerNoted || context.getSession() == null) {
            return;
        }
        managerNoted = true;
        if (!(context.getSession().getDirectoryService().getOperationManager() instanceof SnapshotOperationManager)) {
            System.getLogger("io.mvbt.apacheds").log(System.Logger.Level.INFO, "mvbt partition " + id
                    + " runs under ApacheDS's own operation manager: its searches take the server-wide read lock,"
                    + " and a write transaction ApacheDS leaves open after an exception that is not its own holds"
                    + " the writer. SnapshotOperationManager.install(service) before the service starts lets"
                    + " searches read snapshots without the lock and ends what an operation leaves open.");
        }
    }

    @Override
    public EntryFilteringCursor search(SearchOperationContext context) throws LdapException {
        noteOperationManager(context);
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
    public Subordinates getSubordinates(PartitionTxn txn, Entry entry) throws LdapException {
        try (BoundTxn.Scope unlocked = SnapshotReads.enter()) {
            return super.getSubordinates(txn, entry);
        }
    }

    @Override
    public String getSuffixId(PartitionTxn txn) throws LdapException {
        try (BoundTxn.Scope unlocked = SnapshotReads.enter()) {
            return super.getSuffixId(txn);
        }
    }

    /**
     * An entry's DN, built from the RDN index a level at a time. On a snapshot it is cached with
     * the version of the RDN index's reverse tree: a snapshot whose tree has that version has the
     * same RDNs for every ancestor, so the DN is the same; any add, delete, rename or move makes
     * a new version. (ApacheDS's own id-keyed caches could not tell revisions apart.)
     */
    @Override
    protected Dn buildEntryDn(PartitionTxn txn, String id) throws LdapException {
        try (BoundTxn.Scope unlocked = SnapshotReads.enter()) {
            if (!(txn instanceof SnapshotTxn)) {
                return super.buildEntryDn(txn, id);
            }
            long version = ((SnapshotTxn) txn).view().treeVersion(rdnReverse);
            VersionedDn cached = entryDns.get(id);
            if (cached != null && cached.version == version) {
                return cached.dn;
            }
            Dn dn = super.buildEntryDn(txn, id);
            if (dn != null) {
                if (entryDns.size() >= MAX_CACHED_DNS) {
                    entryDns.clear();
                }
                entryDns.put(id, new VersionedDn(version, dn));
            }
            return dn;
        }
    }

    private static final class VersionedDn {
        final long version;
        final Dn dn;

        VersionedDn(long version, Dn dn) {
            this.version = version;
            this.dn = dn;
        }
    }

    // ---- writes: in a transaction of this partition; any failure an LdapException, so that ApacheDS aborts

    private interface Write<T> {
        T run() throws LdapException;
    }

    /**
     * Runs a write in the operation's transaction, or in one of its own (committed here) when
     * ApacheDS gives none of this partition's: an interceptor may write without one.
     */
    private <T> T write(String operation, OperationContext context, Write<T> write) throws LdapException {
        noteOperationManager(context);
        PartitionTxn given = context.getTransaction();
        try {
            if (given instanceof WriteTxnAdapter && ((WriteTxnAdapter) given).store() == store) {
                try (BoundTxn.Scope bound = BoundTxn.bind(given)) {
                    return write.run();
                }
            }
            try (WriteTxnAdapter own = beginWriteTransaction(); BoundTxn.Scope bound = BoundTxn.bind(own)) {
                context.setTransaction(own);
                T result = write.run();
                own.commit();
                return result;
            } catch (IOException e) {
                throw new LdapOtherException(e.getMessage(), e);
            } finally {
                context.setTransaction(given);
            }
        } catch (RuntimeException e) {
            throw new LdapOtherException("the " + operation + " in mvbt partition " + id + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void add(AddOperationContext context) throws LdapException {
        write("add", context, () -> {
            super.add(context);
            return null;
        });
    }

    @Override
    public Entry delete(DeleteOperationContext context) throws LdapException {
        return write("delete", context, () -> super.delete(context));
    }

    @Override
    public void modify(ModifyOperationContext context) throws LdapException {
        write("modify", context, () -> {
            super.modify(context);
            return null;
        });
    }

    @Override
    public void rename(RenameOperationContext context) throws LdapException {
        write("rename", context, () -> {
            super.rename(context);
            return null;
        });
    }

    @Override
    public void move(MoveOperationContext context) throws LdapException {
        write("move", context, () -> {
            super.move(context);
            return null;
        });
    }

    @Override
    public void moveAndRename(MoveAndRenameOperationContext context) throws LdapException {
        write("moveAndRename", context, () -> {
            super.moveAndRename(context);
            return null;
        });
    }

}
