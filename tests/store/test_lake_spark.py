"""The lake as Spark sees it: Spark SQL's own coverage query over the lake's plain
Parquet snapshot (`hotdb lake export --parquet`) agrees with `hotdb top`. Needs the `spark` extra (pyspark) and Java; slow (Spark starts
a JVM)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from helpers import DATA, spark_coverage_sql

pyspark = pytest.importorskip("pyspark", reason="the spark extra is not installed")
pytestmark = pytest.mark.slow


@pytest.mark.skipif(shutil.which("java") is None, reason="Spark needs Java")
def test_spark_sql_coverage_over_the_lake_agrees_with_hotdb(tmp_path, vgg16):
    lake = tmp_path / "lake"
    for args in ([vgg16["table"], vgg16["relay"], vgg16["tasks"], "--model", "vgg16"],
                 [DATA / "debug-table/vgg16_tvm09/vgg16.debug_table.txt", "--model", "vgg16"]):
        subprocess.run([sys.executable, "-m", "hotdb", "--lake", lake, "ingest", *args], check=True, capture_output=True)
    hotdb = {}
    for label in ("vgg16-1", "vgg16-2"):
        out = subprocess.run([sys.executable, "-m", "hotdb", "--lake", lake, "top", "--run", label, "--coverage", "90", "--share-of", "run",
                              "-f", "json"], check=True, capture_output=True, text=True).stdout
        hotdb[label] = [(r["workload"], round(r["time_us"], 3), round(r["cumulative_pct"], 6)) for r in json.loads(out)]

    plain = tmp_path / "plain"
    subprocess.run([sys.executable, "-m", "hotdb", "--lake", lake, "lake", "export", "--parquet", plain], check=True,
                   capture_output=True)

    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[1]").appName("hotdb-lake-test")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2").getOrCreate())
    try:
        for table in ("runs", "node_calls", "node_signatures", "kernel_match_results"):
            spark.read.parquet(f"{plain}/{table}").createOrReplaceTempView(table)
        for label, expected in hotdb.items():
            rows = spark.sql(spark_coverage_sql().replace("${run}", label)).collect()
            got = [(r["workload_key"], round(r["time_us"], 3), round(r["cumulative_pct"], 6)) for r in rows]
            assert got == expected, label
            assert len(got) >= 5
    finally:
        spark.stop()
