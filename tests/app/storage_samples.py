"""DiskSpd -Rxml and HCIBench summary samples, written to the tools'
documented formats (DiskSpd: microsoft/diskspd XmlResultParser.cpp and
the profile XML of Common.cpp; HCIBench: parseFioResult.rb's
``*-res.txt`` and its test naming). Neither tool runs here, so the
numbers are those of a known back end (a closed queue of ``CHANNELS``
servers of ``SERVICE_S`` each, random reads bound to the server that holds
their data: models.storage.closed_queue_iops): the calibration must
recover it. ``python -m tests.app.storage_samples``
rewrites the committed samples in tests/data/import/.
"""

from pathlib import Path

from models import storage

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "import"

#: The back end the samples measure: 8 channels of 200 us (40,000 IOPS).
SERVICE_S = 200e-6
CHANNELS = 8
DEPTHS = (1, 2, 4, 8, 16, 32)


def iops(oio):
    return float(storage.closed_queue_iops(
        oio, CHANNELS / SERVICE_S, SERVICE_S, servers=CHANNELS,
        service_time=SERVICE_S, placed_fraction=1.0))


def diskspd_xml(depth, *, seconds=30.0, block=4096, write_ratio=0):
    """One DiskSpd -Rxml result: one thread, ``-o depth``, random IO."""
    rate = iops(depth)
    count = round(rate * seconds)
    reads = round(count * (100 - write_ratio) / 100)
    latency_ms = depth / rate * 1e3
    return f"""<Results>
  <System>
    <ComputerName>hv01</ComputerName>
    <Tool>
      <Version>2.1</Version>
      <VersionDate>2021/7/1</VersionDate>
    </Tool>
    <RunTime>2024/05/06 10:00:00 UTC</RunTime>
    <ProcessorTopology>
      <Group Group="0" MaximumProcessors="16" ActiveProcessors="16"
             ActiveProcessorMask="0xffff"/>
    </ProcessorTopology>
  </System>
  <Profile>
    <Progress>0</Progress>
    <ResultFormat>xml</ResultFormat>
    <Verbose>false</Verbose>
    <TimeSpans>
      <TimeSpan>
        <CompletionRoutines>false</CompletionRoutines>
        <MeasureLatency>true</MeasureLatency>
        <CalculateIopsStdDev>false</CalculateIopsStdDev>
        <DisableAffinity>false</DisableAffinity>
        <Duration>{seconds:.0f}</Duration>
        <Warmup>5</Warmup>
        <Cooldown>0</Cooldown>
        <ThreadCount>0</ThreadCount>
        <RequestCount>0</RequestCount>
        <IoBucketDuration>1000</IoBucketDuration>
        <RandSeed>0</RandSeed>
        <Targets>
          <Target>
            <Path>D:\\diskspd.dat</Path>
            <BlockSize>{block}</BlockSize>
            <BaseFileOffset>0</BaseFileOffset>
            <SequentialScan>false</SequentialScan>
            <RandomAccess>false</RandomAccess>
            <TemporaryFile>false</TemporaryFile>
            <UseLargePages>false</UseLargePages>
            <DisableOSCache>true</DisableOSCache>
            <WriteThrough>true</WriteThrough>
            <WriteBufferContent>
              <Pattern>sequential</Pattern>
            </WriteBufferContent>
            <ParallelAsyncIO>false</ParallelAsyncIO>
            <FileSize>1073741824</FileSize>
            <Random>{block}</Random>
            <ThreadStride>0</ThreadStride>
            <MaxFileSize>0</MaxFileSize>
            <RequestCount>{depth}</RequestCount>
            <WriteRatio>{write_ratio}</WriteRatio>
            <Throughput>0</Throughput>
            <ThreadsPerFile>1</ThreadsPerFile>
            <IOPriority>3</IOPriority>
            <Weight>1</Weight>
          </Target>
        </Targets>
      </TimeSpan>
    </TimeSpans>
  </Profile>
  <TimeSpan>
    <TestTimeSeconds>{seconds:.2f}</TestTimeSeconds>
    <ThreadCount>1</ThreadCount>
    <RequestCount>0</RequestCount>
    <ProcCount>16</ProcCount>
    <CpuUtilization>
      <Average>
        <UsagePercent>3.10</UsagePercent>
        <UserPercent>0.50</UserPercent>
        <KernelPercent>2.60</KernelPercent>
        <IdlePercent>96.90</IdlePercent>
      </Average>
    </CpuUtilization>
    <Latency ReadHistoBuckets="1" WriteHistoBuckets="0" TotalHistoBuckets="1">
      <AverageReadMilliseconds>{latency_ms:.3f}</AverageReadMilliseconds>
      <AverageTotalMilliseconds>{latency_ms:.3f}</AverageTotalMilliseconds>
    </Latency>
    <Thread>
      <Id>0</Id>
      <Target>
        <Path>D:\\diskspd.dat</Path>
        <BytesCount>{count * block}</BytesCount>
        <FileSize>1073741824</FileSize>
        <IOCount>{count}</IOCount>
        <ReadBytes>{reads * block}</ReadBytes>
        <ReadCount>{reads}</ReadCount>
        <WriteBytes>{(count - reads) * block}</WriteBytes>
        <WriteCount>{count - reads}</WriteCount>
        <AverageReadLatencyMilliseconds>{latency_ms:.3f}\
</AverageReadLatencyMilliseconds>
      </Target>
    </Thread>
  </TimeSpan>
</Results>
"""


def hcibench_summary(vms, *, disks=1, threads=1, block_kib=4, read_pct=100):
    """(file name, text) of an HCIBench fio summary for ``vms`` test VMs."""
    oio = vms * disks * threads
    rate = iops(oio)
    latency_ms = oio / rate * 1e3
    name = (f"fio-{disks}vmdk-100ws-{block_kib}k-{read_pct}rdpct-"
            f"100randompct-{threads}threads-17000000{vms:02d}-res.txt")
    text = (f"Datastore     = vsanDatastore\n"
            "=============================\n"
            f"JOB_NAME\t= job0\n"
            f"VMs\t\t= {vms}\n"
            f"IOPS\t\t= {rate:.2f} IO/S\n"
            f"THROUGHPUT\t= {rate * block_kib / 1024:.2f} MB/s\n"
            f"R_LATENCY\t= {latency_ms:.4f} ms\n"
            f"W_LATENCY\t= 0.0000 ms\n"
            f"95%tile_R_LAT\t= {1.5 * latency_ms:.4f} ms\n"
            f"95%tile_W_LAT\t= 0.0000 ms\n"
            "=============================\n"
            "Resource Usage:\n"
            "+----------+----------+\n")
    return name, text


def vdbench_summary(vms):
    """(file name, text) of an HCIBench vdbench summary (parseVdbResult.rb:
    a block per run definition) for ``vms`` test VMs, one disk and one
    thread each."""
    rate = iops(vms)
    latency_ms = vms / rate * 1e3
    name = (f"vdb-1vmdk-100ws-4k-100rdpct-100randompct-1threads-"
            f"17100000{vms:02d}-res.txt")
    text = ("Datastore     = vsanDatastore\n"
            "=============================\n"
            "Version:\tvdbench50407\n"
            "Run Def:\tRD=run1; I/O rate: Uncontrolled MAX; elapsed=3600; "
            "For loops: None\n"
            f"VMs\t\t= {vms}\n"
            f"IOPS\t\t= {rate:.2f} IO/S\n"
            f"THROUGHPUT\t= {rate * 4 / 1024:.2f} MB/s\n"
            f"LATENCY\t\t= {latency_ms:.2f} ms\n"
            f"R_LATENCY\t= {latency_ms:.2f} ms\n"
            "W_LATENCY\t= 0.00 ms\n"
            f"95%tile_LAT\t= {1.5 * latency_ms:.2f} ms\n"
            "=============================\n"
            "Resource Usage:\n")
    return name, text


def write(folder):
    """Every sample into ``folder``; their paths."""
    folder = Path(folder)
    paths = []
    for depth in (1, 4, 16):
        path = folder / f"diskspd_o{depth}.xml"
        path.write_text(diskspd_xml(depth))
        paths.append(path)
    for vms in (1, 2, 4, 8, 16):
        name, text = hcibench_summary(vms)
        (folder / name).write_text(text)
        paths.append(folder / name)
    for vms in (1, 4, 16):
        name, text = vdbench_summary(vms)
        (folder / name).write_text(text)
        paths.append(folder / name)
    return paths


if __name__ == "__main__":
    for written in write(SAMPLES):
        print(written)
