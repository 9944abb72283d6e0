/*
 * kafka-mock: librdkafka's mock cluster (the one `kcat -X test.mock.num.brokers=N` starts, see
 * test/helpers/kafka.ts) with topics created up front at a chosen partition count. The mock
 * auto-creates a topic with 4 partitions and has no CreateTopics, and a Kafka consumer runs one
 * handler per partition at a time, so a pool of more than a few processes needs its topics made
 * wider before anything touches them: rd_kafka_mock_topic_create does that.
 *
 *   kafka-mock BROKERS PARTITIONS TOPIC...
 *
 * prints the same line kcat does on stderr ("Mock cluster enabled: ... replaced with
 * 127.0.0.1:PORT,...") once the topics exist, then serves until its standard input closes or a
 * signal ends it. Only librdkafka1 (kcat's dependency) and gcc are needed: the few functions
 * used are declared here, so no librdkafka headers. Built by test/helpers/kafka.ts on first use.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct rd_kafka_s rd_kafka_t;
typedef struct rd_kafka_conf_s rd_kafka_conf_t;
typedef struct rd_kafka_mock_cluster_s rd_kafka_mock_cluster_t;

extern rd_kafka_conf_t *rd_kafka_conf_new(void);
extern rd_kafka_t *rd_kafka_new(int type, rd_kafka_conf_t *conf, char *errstr, size_t errstr_size);
extern rd_kafka_mock_cluster_t *rd_kafka_mock_cluster_new(rd_kafka_t *rk, int broker_cnt);
extern const char *rd_kafka_mock_cluster_bootstraps(const rd_kafka_mock_cluster_t *mcluster);
extern int rd_kafka_mock_topic_create(rd_kafka_mock_cluster_t *mcluster, const char *topic, int partition_cnt, int replication_factor);

#define RD_KAFKA_PRODUCER 0

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: kafka-mock BROKERS PARTITIONS TOPIC...\n");
    return 2;
  }
  int brokers = atoi(argv[1]);
  int partitions = atoi(argv[2]);
  if (brokers < 1 || partitions < 1) {
    fprintf(stderr, "kafka-mock: BROKERS and PARTITIONS must be positive\n");
    return 2;
  }
  char errstr[512];
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, rd_kafka_conf_new(), errstr, sizeof errstr);
  if (!rk) {
    fprintf(stderr, "kafka-mock: rd_kafka_new failed: %s\n", errstr);
    return 1;
  }
  rd_kafka_mock_cluster_t *mcluster = rd_kafka_mock_cluster_new(rk, brokers);
  if (!mcluster) {
    fprintf(stderr, "kafka-mock: the mock cluster did not start\n");
    return 1;
  }
  int replication = brokers < 3 ? brokers : 3;
  for (int i = 3; i < argc; i++) {
    int err = rd_kafka_mock_topic_create(mcluster, argv[i], partitions, replication);
    if (err != 0) {
      fprintf(stderr, "kafka-mock: topic %s not created (error %d)\n", argv[i], err);
      return 1;
    }
  }
  fprintf(stderr, "Mock cluster enabled: topics created with %d partitions; replaced with %s\n", partitions,
          rd_kafka_mock_cluster_bootstraps(mcluster));
  fflush(stderr);
  /* Serve until stdin closes (the parent went away) or a signal ends the process. */
  char buf[256];
  while (read(0, buf, sizeof buf) > 0) {
  }
  return 0;
}
