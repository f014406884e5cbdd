// SPDX-License-Identifier: Apache-2.0
package io.mvbt.apacheds;

import java.io.File;
import java.util.Set;
import org.apache.directory.api.ldap.model.name.Dn;
import org.apache.directory.api.ldap.model.schema.SchemaManager;
import org.apache.directory.server.core.api.DnFactory;
import org.apache.directory.server.core.api.partition.Partition;
import org.apache.directory.server.core.factory.PartitionFactory;
import org.apache.directory.server.xdbm.Index;

/** Makes {@link MvbtPartition}s for ApacheDS's factories and test annotations. */
public final class MvbtPartitionFactory implements PartitionFactory {
    @Override
    public MvbtPartition createPartition(SchemaManager schemaManager, DnFactory dnFactory, String id, String suffix,
            int cacheSize, File workingDirectory) throws Exception {
        MvbtPartition partition = new MvbtPartition(schemaManager, dnFactory);
        partition.setId(id);
        partition.setSuffixDn(new Dn(schemaManager, suffix));
        partition.setCacheSize(cacheSize);
        partition.setPartitionPath(workingDirectory.toURI());
        return partition;
    }

    @Override
    public void addIndex(Partition partition, String attributeId, int cacheSize) {
        if (!(partition instanceof MvbtPartition)) {
            throw new IllegalArgumentException("an mvbt index goes in an MvbtPartition, not " + partition.getClass());
        }
        MvbtPartition mvbt = (MvbtPartition) partition;
        Set<Index<?, String>> indexes = mvbt.getIndexedAttributes();
        indexes.add(new MvbtIndex<>(attributeId, true));
        mvbt.setIndexedAttributes(indexes);
    }
}
