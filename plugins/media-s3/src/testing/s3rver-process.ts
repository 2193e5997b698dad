import S3rver from 's3rver';

/**
 * The process {@link S3TestServer} runs s3rver in: `node --openssl-legacy-provider s3rver-process.js
 * <directory> <port> <bucket>`. It reports its port over IPC once it listens, and exits when told to
 * stop or when its parent goes away (the IPC channel closes), so no test leaves it behind.
 */
async function main(): Promise<void> {
  const [directory, port, bucket] = process.argv.slice(2);
  const server = new S3rver({ address: '127.0.0.1', port: Number(port), silent: true, directory: directory!, configureBuckets: [{ name: bucket! }] });
  const address = await server.run();
  const stop = () => void server.close().finally(() => process.exit(0));
  process.on('disconnect', stop);
  process.on('message', (message) => {
    if (message === 'stop') stop();
  });
  process.send!({ port: address.port });
}

main().catch((err: unknown) => {
  console.error('s3rver failed to start:', err);
  process.exit(1);
});
