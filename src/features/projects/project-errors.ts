import { notFound, quote, type AppError } from '../../http/errors.ts'

export const projectNotFound = (project: string): AppError => notFound(`Project ${quote(project)} does not exist.`)
