// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import java.lang.reflect.Field;
import java.util.concurrent.locks.ReadWriteLock;
import org.apache.directory.api.ldap.model.entry.Entry;
import org.apache.directory.api.ldap.model.exception.LdapException;
import org.apache.directory.api.ldap.model.name.Dn;
import org.apache.directory.server.core.DefaultDirectoryService;
import org.apache.directory.server.core.DefaultOperationManager;
import org.apache.directory.server.core.api.DirectoryService;
import org.apache.directory.server.core.api.filtering.EntryFilteringCursor;
import org.apache.directory.api.ldap.model.exception.LdapUnwillingToPerformException;
import org.apache.directory.server.core.api.interceptor.context.AddOperationContext;
import org.apache.directory.server.core.api.interceptor.context.CompareOperationContext;
import org.apache.directory.server.core.api.interceptor.context.DeleteOperationContext;
import org.apache.directory.server.core.api.interceptor.context.ModifyOperationContext;
import org.apache.directory.server.core.api.interceptor.context.MoveAndRenameOperationContext;
import org.apache.directory.server.core.api.interceptor.context.MoveOperationContext;
import org.apache.directory.server.core.api.interceptor.context.OperationContext;
import org.apache.directory.server.core.api.interceptor.context.RenameOperationContext;
import org.apache.directory.server.core.api.interceptor.context.HasEntryOperationContext;
import org.apache.directory.server.core.api.interceptor.context.LookupOperationContext;
import org.apache.directory.server.core.api.interceptor.context.SearchOperationContext;
import org.apache.directory.server.core.api.partition.Partition;

/**
 * ApacheDS's operation manager without the server-wide read lock for reads of mvbt partitions.
 * The stock manager takes a fair read-write lock: every add, delete, modify and rename holds the
 * write side, every search, lookup and compare the read side, so a search waits for every write
 * and every write for every search. A search, lookup, compare or existence test whose base entry
 * is in an {@link MvbtPartition} reads one snapshot of that partition, which no write changes, so
 * it takes no read lock here; the write lock stays (mvbt takes one writer at a time anyway).
 * Reads of any other partition lock as before, and so do all reads while access control is on.
 * Each write operation is a scope ({@link WriteOperation}): an mvbt transaction ApacheDS leaves
 * open, whatever ends the operation, is aborted. What stays serialized is in docs/apacheds.md.
 */
public final class SnapshotOperationManager extends DefaultOperationManager {
    private static final ThreadLocal<int[]> UNLOCKED = ThreadLocal.withInitial(() -> new int[1]);

    private final DirectoryService service;
    private final ReadWriteLock serverLock;

    public SnapshotOperationManager(DirectoryService service) {
        super(service);
        this.service = service;
        this.serverLock = SnapshotReads.serverLock(super.getRWLock());
    }

    /**
     * Puts a manager of this kind in {@code service}, which must not have started.
     * {@code DefaultDirectoryService} makes its own and has no setter, so the field is replaced.
     */
    public static void install(DefaultDirectoryService service) {
        if (service.isStarted()) {
            throw new IllegalStateException("the operation manager is replaced before the service starts");
        }
        try {
            Field field = DefaultDirectoryService.class.getDeclaredField("operationManager");
            field.setAccessible(true);
            field.set(service, new SnapshotOperationManager(service));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this ApacheDS has no DefaultDirectoryService.operationManager to replace"
                    + " (built for 2.0.0.AM27)", e);
        }
    }

    /** The lock partitions take: its read side is skipped inside an mvbt partition's snapshot reads. */
    @Override
    public ReadWriteLock getRWLock() {
        return serverLock;
    }

    @Override
    public void lockRead() {
        if (UNLOCKED.get()[0] == 0) {
            super.lockRead();
        }
    }

    @Override
    public void unlockRead() {
        if (UNLOCKED.get()[0] == 0) {
            super.unlockRead();
        }
    }

    @Override
    public EntryFilteringCursor search(SearchOperationContext context) throws LdapException {
        return read(context.getDn(), () -> super.search(context));
    }

    @Override
    public Entry lookup(LookupOperationContext context) throws LdapException {
        return read(context.getDn(), () -> super.lookup(context));
    }

    @Override
    public boolean hasEntry(HasEntryOperationContext context) throws LdapException {
        return read(context.getDn(), () -> super.hasEntry(context));
    }

    @Override
    public boolean compare(CompareOperationContext context) throws LdapException {
        return read(context.getDn(), () -> super.compare(context));
    }

    private interface Read<T> {
        T run() throws LdapException;
    }

    /** Runs a read of {@code dn} without the read lock if {@link #unlockedRead} allows; nested reads decide for themselves. */
    private <T> T read(Dn dn, Read<T> read) throws LdapException {
        int[] unlocked = UNLOCKED.get();
        int outer = unlocked[0];
        unlocked[0] = unlockedRead(dn) ? 1 : 0;
        try {
            return read.run();
        } finally {
            unlocked[0] = outer;
        }
    }

    // ---- writes: whatever ends them, nothing of theirs is left open in an mvbt store

    private interface Write {
        void run() throws LdapException;
    }

    private void write(OperationContext context, Write write) throws LdapException {
        if (context.getSession() != null && context.getSession().hasSessionTransaction()
                && inMvbtPartition(context.getDn())) {
            throw new LdapUnwillingToPerformException("LDAP transactions (RFC 5805) are not supported on mvbt"
                    + " partitions: " + context.getDn());
        }
        try (BoundTxn.Scope operation = WriteOperation.enter()) {
            write.run();
        }
    }

    @Override
    public void add(AddOperationContext context) throws LdapException {
        write(context, () -> super.add(context));
    }

    @Override
    public void delete(DeleteOperationContext context) throws LdapException {
        write(context, () -> super.delete(context));
    }

    @Override
    public void modify(ModifyOperationContext context) throws LdapException {
        write(context, () -> super.modify(context));
    }

    @Override
    public void rename(RenameOperationContext context) throws LdapException {
        write(context, () -> super.rename(context));
    }

    @Override
    public void move(MoveOperationContext context) throws LdapException {
        write(context, () -> super.move(context));
    }

    @Override
    public void moveAndRename(MoveAndRenameOperationContext context) throws LdapException {
        write(context, () -> super.moveAndRename(context));
    }

    /**
     * Whether a read of {@code dn} may skip the read lock: it lies in an mvbt partition, and no
     * access control runs (its ACI tuple cache is a plain map that writes change in place).
     */
    private boolean unlockedRead(Dn dn) {
        return !service.isAccessControlEnabled() && inMvbtPartition(dn);
    }

    private boolean inMvbtPartition(Dn dn) {
        if (dn == null || dn.isEmpty()) {
            return false;
        }
        try {
            Dn normalized = dn.isSchemaAware() ? dn : new Dn(service.getSchemaManager(), dn);
            Partition partition = service.getPartitionNexus().getPartition(normalized);
            return partition instanceof MvbtPartition;
        } catch (LdapException e) {
            return false;
        }
    }
}
