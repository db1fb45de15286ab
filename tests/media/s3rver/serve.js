// Starts s3rver on 127.0.0.1:<port> with data in <dir>; prints "ready <port>" once listening.
const S3rver = require("@20minutes/s3rver");
const [dir, port] = process.argv.slice(2);
new S3rver({ address: "127.0.0.1", port: Number(port), directory: dir, silent: true })
  .run()
  .then(({ port: bound }) => console.log(`ready ${bound}`))
  .catch((err) => { console.error(err); process.exit(1); });
